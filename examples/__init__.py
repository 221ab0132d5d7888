"""The bundled example repositories, shipped as package data for `gradgate demo`."""

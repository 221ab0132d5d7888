"""`.gradgate.yml`: YAML with line numbers -> validated, frozen ``Config``.

``yaml_lines`` reads YAML and remembers where each key and value sits; ``model`` holds the
pydantic types and ``load_config``; ``errors`` words every problem with its key path and line;
``schema`` prints the JSON Schema; ``starter`` writes the file `gradgate init` proposes.
"""

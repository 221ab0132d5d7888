"""Sources of truth: config files (YAML, JSON, TOML, Python modules) and code defaults (dataclass
fields, argparse options), read statically into Facts with lines. ``read_source`` picks the reader
by file name; each reader returns its facts and the problems that stopped or troubled it.
"""

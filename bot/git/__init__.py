"""Local git: revisions, the diff between two of them, files at a revision, exported trees.

``repository`` is the only module of gradgate that imports GitPython; ``cmdline`` holds the git
command lines (every user-config-sensitive option pinned) and reads git's output streams;
``parse`` turns `git diff` output into ``FileChange`` values and is pure.
"""

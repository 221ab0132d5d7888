"""The `dl-lint` check: the mistakes every DL team has made once, flagged on the lines a PR adds."""

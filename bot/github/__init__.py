"""The GitHub door's parts: reporting to GitHub and reading what GitHub sends.

ports.py      the narrow interface gradgate needs from GitHub, and its plain values
client.py     that interface over PyGithub, and a GitHub App's installation tokens: the only
              module that imports PyGithub
events.py     an Action's event payload -> what to do (pure)
commands.py   `/recheck` (and the App's `/ok-to-test`) in a comment, and who may use it (pure)
split.py      a report too long for one comment -> numbered parts (pure)
sticky.py     the one sticky comment: find it, stamp it, decide create/edit/recreate (pure)
statuses.py   the commit statuses of a plan or a report (pure)
checkruns.py  the same as check runs, with findings as annotations (pure)
review.py     the optional PR review: inline comments on changed lines, the rest in its body (pure)
matrix.py     `gradgate plan --format github-matrix`: job outputs for a workflow (pure)
results.py    per-check JSON results from workflow jobs -> one report (pure)
workflows.py  the workflows `gradgate init --workflows` writes
outcome.py    check runs where the token allows, else statuses: the I/O, through the port
publish.py    the comment and the outcome, never stale: the I/O, through the port
reviewer.py   that review submitted and the previous one cleared: the I/O, through the port
recheck.py    a `/recheck` comment -> 👀 and a re-run, or one polite refusal: the I/O; the
              replies the App gives to commands too
"""

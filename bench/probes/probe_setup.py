"""What every probe here starts with: the repository's bench/, clients/python/ and scripts/ on
sys.path (its helpers import as modules), and a command-line parser with --legibled."""
import argparse
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for folder in ("bench", "clients/python", "scripts"):
    sys.path.insert(0, os.path.join(REPO, folder))


def probe_parser(doc):
    """A parser for a probe whose docstring is `doc`, with --legibled (the release build)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build/release/legibled"))
    return parser

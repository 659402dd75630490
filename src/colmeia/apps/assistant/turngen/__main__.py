"""``python -m colmeia.apps.assistant.turngen FOLDER``: write the generated sets to FOLDER."""

import sys
from pathlib import Path

from colmeia.apps.assistant.turngen.files import write_sets

if __name__ == "__main__":
    write_sets(Path(sys.argv[1] if len(sys.argv) > 1 else "."))

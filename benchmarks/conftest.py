import sys
from pathlib import Path

# Let benchmark files import the shared workload definitions.
sys.path.insert(0, str(Path(__file__).parent))

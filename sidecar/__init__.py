"""rtac's sidecar."""
import os

# numpy's OpenBLAS starts a thread per core for every matrix-vector product, and on
# the two cores rtac shares with its database its spinning workers take the core
# MariaDB needs: measured at 10k chunks (bench/RESULTS.md, chat bench), one thread
# turned 16-18 ms turns using 24-26 ms of CPU into 14 ms turns using 9 ms. The
# products rtac does (one query against a site's matrix) are small enough for one
# thread. Set before numpy is first imported; an operator's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

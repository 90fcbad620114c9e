"""What the tests and the benchmarks share to run the sidecar for real without the outside
world: local fakes of the model vendors on their real wire formats, a fake of the sidecar the
WordPress plugin talks to, the real sidecar as a child process, a fresh database on a MariaDB
server, a 3-node Galera cluster behind HAProxy. Never shipped: setup.cfg packages the sidecar alone."""

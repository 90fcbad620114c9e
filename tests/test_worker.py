"""The background thread that drains a database queue: woken by new work, survives
a failing pass, stops on request."""
import threading

from sidecar.worker import Worker


def test_a_worker_drains_on_notify_survives_a_failing_pass_and_stops():
    done = threading.Event()
    calls = []

    def step():
        calls.append(len(calls))
        if len(calls) == 1:
            raise RuntimeError("database away")  # logged; the next wake-up tries again
        if len(calls) == 3:
            done.set()
            return 0
        return 1  # more to do: called again at once

    w = Worker("rtac-test-worker", step, poll=60)
    w.notify()  # first pass fails
    w.notify()  # woken again: two steps, the second finds nothing left
    assert done.wait(5)
    assert calls == [0, 1, 2]
    thread = w._thread
    w.ensure_running()
    assert w._thread is thread  # one thread per process, not one per call
    w.stop()
    thread.join(5)
    assert not thread.is_alive()


def test_a_database_failure_is_a_warning_and_any_other_fault_keeps_its_traceback(caplog):
    from pymysql.err import OperationalError as MySQLOperationalError
    from sqlalchemy.exc import OperationalError

    done = threading.Event()
    faults = [OperationalError("SELECT 1", {}, MySQLOperationalError(1047, "WSREP has not yet prepared node")),
              ValueError("a bug")]

    def step():
        if faults:
            raise faults.pop(0)
        done.set()
        return 0

    w = Worker("rtac-test-faults", step, poll=0.05)
    with caplog.at_level("WARNING", logger="rtac"):
        w.notify()
        assert done.wait(5)
        w.stop()
        w._thread.join(5)
    database, bug = [r for r in caplog.records if r.name == "rtac"][:2]
    assert database.levelname == "WARNING" and database.exc_info is None and "1047" in database.getMessage()
    assert bug.levelname == "ERROR" and bug.exc_info is not None

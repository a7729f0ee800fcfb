"""The node's one send watchdog: a send that waits too long gets its socket cut off."""

from server.net.watchdog import SendWatchdog


class FakeSocket:
    def __init__(self, sending_since: float | None):
        self.sending_since = sending_since
        self.cut = False

    def cut_off(self) -> None:
        self.cut = True


def test_only_a_send_waiting_the_whole_limit_is_cut_off():
    watchdog = SendWatchdog(limit_s=10.0)
    idle, recent, stuck = FakeSocket(None), FakeSocket(95.0), FakeSocket(90.0)
    for socket in (idle, recent, stuck):
        watchdog.add(socket)

    assert watchdog.sweep(now=100.0) == [stuck]

    assert stuck.cut and not recent.cut and not idle.cut
    assert len(watchdog) == 2  # the cut-off socket is forgotten; the others stay watched


def test_a_socket_that_left_is_never_swept():
    watchdog = SendWatchdog(limit_s=1.0)
    gone = FakeSocket(0.0)
    watchdog.add(gone)
    watchdog.discard(gone)

    assert watchdog.sweep(now=100.0) == [] and not gone.cut

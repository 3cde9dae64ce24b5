"""benchmarks.stages times each stage on its own thread (issue 32): the tumble check and the
empty-table learner's judging run on threads of their own, and a stage timed on one thread must not
take in, or lose, the time of a stage another thread runs meanwhile."""

from __future__ import annotations

import threading

from benchmarks.stages import Clock


def test_a_stage_on_another_thread_is_not_taken_out_of_the_one_open_here() -> None:
    clock = Clock()
    inside, done = threading.Event(), threading.Event()

    def outer() -> None:
        inside.set()
        assert done.wait(timeout=60)

    def other() -> None:
        sum(i * i for i in range(20000))  # some CPU of its own

    step = clock.timed("perceive", outer)
    pose = clock.timed("pose", other)
    t = threading.Thread(target=step)
    t.start()
    assert inside.wait(timeout=60)
    pose()  # on this thread, while the other thread is inside its perception step
    done.set()
    t.join(timeout=60)
    assert len(clock.samples["pose"]) == 1 and len(clock.samples["perceive"]) == 1
    # nothing ran inside the perception step on its own thread: none of its time is a part's
    assert clock.samples["perceive rest"] == clock.samples["perceive"]

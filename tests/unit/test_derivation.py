"""The deriver wait's logic, sans-IO: scripted queue reads on a clock the test moves."""

from __future__ import annotations

from typing import Any

import pytest

import roncho
from roncho import DerivationOutcome, DeriverGates, QueueStatus
from roncho._derivation import (
    DEFAULT_DERIVER_LOOK,
    DerivationWait,
    Pause,
    Read,
)

SESSION = "s1"


def status(
    total: int = 0, completed: int = 0, in_progress: int = 0, pending: int = 0, **extra: Any
) -> QueueStatus:
    return QueueStatus(
        total_work_units=total,
        completed_work_units=completed,
        in_progress_work_units=in_progress,
        pending_work_units=pending,
        **extra,
    )


ZERO = status()


class Script:
    """Drives a wait: each session read answers the next scripted status (the last one
    repeats); each workspace read answers ``workspace``. Time moves only by the pauses,
    plus ``read_takes`` per read."""

    def __init__(
        self,
        reads: list[QueueStatus],
        *,
        since: QueueStatus = ZERO,
        workspace: QueueStatus = ZERO,
        read_takes: float = 0.01,
        **options: Any,
    ) -> None:
        options = {"grace": 1.0, "interval": 0.25, "gates": None, "deadline": 10.0, **options}
        self.now = 100.0
        self.wait = DerivationWait(SESSION, since, now=self.now, **options)
        self.reads = list(reads)
        self.workspace = workspace
        self.read_takes = read_takes
        self.log: list[tuple[float, str | None]] = []

    def run(self) -> DerivationOutcome:
        for _ in range(10_000):
            step = self.wait.next(self.now)
            if isinstance(step, DerivationOutcome):
                return step
            if isinstance(step, Pause):
                assert step.seconds > 0
                self.now += step.seconds
                continue
            assert isinstance(step, Read) and 0 < step.deadline <= self.wait.bound
            self.log.append((self.now - 100.0, step.session_id))
            self.now += self.read_takes
            if step.session_id is None:
                answer = self.workspace
            else:
                answer = self.reads.pop(0) if len(self.reads) > 1 else self.reads[0]
            self.wait.received(step, answer)
        raise AssertionError("the wait never ended")


def test_done_only_after_the_work_was_seen_and_the_grace_passed() -> None:
    """The first reads after a sync see nothing (the enqueue lag): that is not "done"."""
    script = Script([ZERO, ZERO, status(1, pending=1), status(1, in_progress=1), status(1, 1)])
    outcome = script.run()
    assert outcome.state == "done" and outcome.done
    assert outcome.new_work_units == 1 and outcome.completed == 1
    assert outcome.first_seen == pytest.approx(0.5)
    assert outcome.elapsed >= 1.0  # not before the grace period
    # Pending with none in progress: it looks at the workspace once before the next read.
    assert [who for _, who in script.log] == [SESSION] * 3 + [None] + [SESSION] * 2


def test_work_finished_within_the_grace_is_done_at_the_first_read_past_it() -> None:
    script = Script([status(1, 1)], grace=2.0)
    outcome = script.run()
    assert outcome.state == "done" and outcome.first_seen == 0.0
    assert script.log[-1][0] == pytest.approx(2.0)  # a read is made when the grace ends


def test_an_earlier_batch_enqueued_late_is_not_taken_for_this_one() -> None:
    """Items of an earlier sync show up and finish within the grace; this sync's come
    later, still within it. Only a read past the grace, which shows them, may decide."""
    earlier_done = status(1, 1)
    ours_pending = status(2, 1, pending=1)
    reads = [status(1, pending=1), earlier_done, ours_pending, ours_pending, ours_pending]
    script = Script([*reads, status(2, 2)], grace=1.0)
    outcome = script.run()
    assert outcome.state == "done" and outcome.new_work_units == 2
    reads_of_the_session = [t for t, who in script.log if who == SESSION]
    assert len(reads_of_the_session) == 6 and outcome.elapsed > reads_of_the_session[-1]


def test_nothing_queued_when_no_new_item_appears_within_the_grace() -> None:
    script = Script([status(3, 3)], since=status(3, 3), grace=1.5)
    outcome = script.run()
    assert outcome.state == "nothing_queued" and not outcome.done
    assert outcome.first_seen is None and outcome.new_work_units == 0
    assert outcome.elapsed == pytest.approx(1.51)


def test_old_pending_work_in_the_baseline_is_not_new_work() -> None:
    """A batch left pending by an earlier sync, then worked off: no new item, no "done"."""
    script = Script([status(2, 0, pending=2), status(2, 2)], since=status(2, pending=2))
    assert script.run().state == "nothing_queued"


def test_new_work_is_seen_through_a_cleanup_that_deleted_completed_items() -> None:
    """The server's cleanup deletes completed items: the total can fall below the mark;
    more items not yet completed than before is still new work."""
    script = Script([status(1, pending=1), status(1, 1)], since=status(40, 40))
    outcome = script.run()
    assert outcome.state == "done" and outcome.new_work_units == 1


def test_still_working_at_the_bound_gives_the_counts() -> None:
    script = Script([status(3, 1, in_progress=1, pending=1)], deadline=3.0)
    outcome = script.run()
    assert outcome.state == "still_working"
    assert (outcome.pending, outcome.in_progress, outcome.completed) == (1, 1, 1)
    assert outcome.elapsed == pytest.approx(3.0, abs=0.02)
    assert "1 pending, 1 in progress, 1 completed" in str(outcome)


def test_batching_needs_the_callers_word_and_a_quiet_workspace() -> None:
    gates = DeriverGates(batch_tokens=512, batch_max_age=1800)
    outcome = Script([status(1, pending=1)], gates=gates, deadline=3.0).run()
    assert outcome.state == "batching" and outcome.workspace_in_progress == 0
    assert "a batch is released at 512 tokens or 1800 s after its oldest message" in str(outcome)
    # Without the gates told, pending work could be batching or a backlog: "waiting".
    outcome = Script([status(1, pending=1)], deadline=3.0).run()
    assert outcome.state == "waiting" and "does not say why" in str(outcome)
    # With flush on, pending work with nothing in progress is not batching.
    outcome = Script([status(1, pending=1)], gates=DeriverGates(flush=True), deadline=3.0).run()
    assert outcome.state == "waiting"


def test_work_in_progress_elsewhere_in_the_workspace_is_waiting_not_batching() -> None:
    script = Script(
        [status(1, pending=1)],
        workspace=status(5, 2, in_progress=2, pending=1),
        gates=DeriverGates(),
        deadline=3.0,
    )
    outcome = script.run()
    assert outcome.state == "waiting" and outcome.workspace_in_progress == 2
    assert "2 in progress in the workspace" in str(outcome)
    assert None in {who for _, who in script.log}  # it read the workspace


def test_the_bound_before_the_workspace_was_read_is_waiting_not_batching() -> None:
    """Pending work seen, gates told, but the first read took the whole bound: the
    workspace's queue was never read, so nothing says the deriver is idle."""
    script = Script([status(1, pending=1)], gates=DeriverGates(), deadline=3.0, read_takes=3.0)
    outcome = script.run()
    assert outcome.state == "waiting" and outcome.workspace_in_progress is None
    assert [who for _, who in script.log] == [SESSION]  # the workspace was never read
    # The same with time to read the workspace (quiet) is batching: the read tells them apart.
    outcome = Script([status(1, pending=1)], gates=DeriverGates(), deadline=3.0).run()
    assert outcome.state == "batching" and outcome.workspace_in_progress == 0


def test_busy_elsewhere_once_during_the_wait_is_not_batching() -> None:
    script = Script([status(1, pending=1)], gates=DeriverGates(), deadline=3.0)
    answers = iter([status(2, in_progress=1), *[ZERO] * 100])
    script.workspace = ZERO

    original = script.wait.received

    def received(read: Read, answer: QueueStatus) -> None:
        original(read, next(answers) if read.session_id is None else answer)

    script.wait.received = received  # type: ignore[method-assign]
    outcome = script.run()
    assert outcome.state == "waiting" and outcome.workspace_in_progress == 0


def test_a_batch_past_its_age_gate_is_not_batching() -> None:
    gates = DeriverGates(batch_max_age=1.0)
    deadline = 1.0 + DEFAULT_DERIVER_LOOK + 5.0
    outcome = Script([status(1, pending=1)], gates=gates, deadline=deadline, interval=1.0).run()
    assert outcome.state == "waiting"
    outcome = Script([status(1, pending=1)], gates=gates, deadline=DEFAULT_DERIVER_LOOK).run()
    assert outcome.state == "batching"


def test_batching_is_said_early_when_the_age_gate_opens_after_the_bound() -> None:
    """Told the gates, a wait does not spend its whole deadline on a batch that cannot be
    released before it: once the work has been pending a whole deriver look with nothing in
    progress in the workspace, it says so, with when the age gate will release it."""
    gates = DeriverGates(batch_max_age=1800, deriver_look=3.0)
    script = Script([status(1, pending=1)], gates=gates, deadline=60.0)
    outcome = script.run()
    assert outcome.state == "batching" and outcome.first_seen == 0.0
    assert 3.0 <= outcome.elapsed < 4.0  # a look, plus the read that shows it still pending
    assert outcome.released_by == pytest.approx(1803.0)
    assert "the age gate releases it by 1803 s from the wait's start" in str(outcome)
    # The workspace was read after the last session read that decided it.
    assert script.log[-1][1] is None
    # Honcho's own look (45 s) on a 60 s deadline: said at 45 s, not 60 s.
    outcome = Script([status(1, pending=1)], gates=DeriverGates(), deadline=60.0).run()
    assert outcome.state == "batching" and 45.0 <= outcome.elapsed < 46.0
    # Without an age gate the batch is never released by itself.
    gates = DeriverGates(batch_max_age=None, deriver_look=3.0)
    outcome = Script([status(1, pending=1)], gates=gates, deadline=60.0).run()
    assert outcome.state == "batching" and outcome.elapsed < 4.0
    assert outcome.released_by is None


def test_no_early_batching_where_the_bound_could_see_the_release() -> None:
    """The age gate opens before the bound: the wait goes on (here the batch is never
    released, so it ends at the bound, past the gate, as "waiting")."""
    gates = DeriverGates(batch_max_age=20, deriver_look=3.0)
    outcome = Script([status(1, pending=1)], gates=gates, deadline=60.0, interval=1.0).run()
    assert outcome.state == "waiting" and outcome.elapsed == pytest.approx(60.0, abs=0.1)


def test_no_early_batching_from_work_older_than_the_wait() -> None:
    """Work already pending in ``since`` may be older than the wait: its age gate cannot be
    placed, so only the bound decides."""
    gates = DeriverGates(batch_max_age=1800, deriver_look=3.0)
    outcome = Script(
        [status(2, pending=2)], since=status(1, pending=1), gates=gates, deadline=20.0
    ).run()
    assert outcome.state == "batching" and outcome.elapsed == pytest.approx(20.0, abs=0.1)


def test_no_early_batching_while_the_workspace_is_busy() -> None:
    gates = DeriverGates(batch_max_age=1800, deriver_look=3.0)
    script = Script(
        [status(1, pending=1)],
        workspace=status(3, in_progress=1, pending=1),
        gates=gates,
        deadline=20.0,
    )
    outcome = script.run()
    assert outcome.state == "waiting" and outcome.elapsed == pytest.approx(20.0, abs=0.1)
    assert outcome.released_by is None


def test_work_finishing_within_the_bound_is_done_whatever_the_gates() -> None:
    reads = [status(1, pending=1)] * 8 + [status(1, in_progress=1), status(1, 1)]
    outcome = Script(reads, gates=DeriverGates()).run()
    assert outcome.state == "done"


def test_a_read_cut_by_the_bound_ends_the_wait_with_what_was_seen() -> None:
    wait = DerivationWait(SESSION, ZERO, grace=1.0, interval=0.25, gates=None, deadline=5.0, now=0)
    first = wait.next(0.0)
    assert isinstance(first, Read) and first.deadline == 5.0
    with pytest.raises(roncho.DeadlineExceeded):  # not one answer: nothing to say
        wait.ran_out(roncho.DeadlineExceeded("late"))
    wait.received(first, status(1, pending=1))
    second = wait.next(0.25)
    assert isinstance(second, Read) and second.deadline == pytest.approx(4.75)
    wait.ran_out(roncho.DeadlineExceeded("late"))
    outcome = wait.next(4.9)
    assert isinstance(outcome, DerivationOutcome) and outcome.state == "waiting"


def test_pauses_never_pass_the_bound() -> None:
    wait = DerivationWait(SESSION, ZERO, grace=0.5, interval=5.0, gates=None, deadline=2.0, now=0)
    read = wait.next(0.0)
    assert isinstance(read, Read)
    wait.received(read, status(1, in_progress=1))
    pause = wait.next(0.0)  # the read that closes the grace period comes first
    assert isinstance(pause, Pause) and pause.seconds == pytest.approx(0.5)
    read = wait.next(0.5)
    assert isinstance(read, Read)
    wait.received(read, status(1, in_progress=1))
    pause = wait.next(0.5)  # the next would be at 5.5 s, past the bound at 2 s
    assert isinstance(pause, Pause) and pause.seconds == pytest.approx(1.5)
    outcome = wait.next(2.0)
    assert isinstance(outcome, DerivationOutcome) and outcome.state == "still_working"


SINCE_WORDS = (
    "since must be the QueueStatus read with queue_status(session_id=...) before the sync, not "
)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"session_id": "bad id"}, "session_id must be 1 to 512 characters"),
        ({"session_id": 7}, "session_id must be 1 to 512 characters"),
        ({"since": None}, SINCE_WORDS + "NoneType"),
        ({"since": {"total_work_units": 0}}, SINCE_WORDS + "dict"),
        ({"since": [ZERO]}, SINCE_WORDS + "list"),
        ({"grace": 0}, "grace must be a positive finite number of seconds, got 0"),
        ({"grace": True}, "grace must be a number of seconds, not bool"),
        ({"grace": "1"}, "grace must be a number of seconds, not str"),
        ({"interval": -1.0}, "interval must be a positive finite number of seconds, got -1.0"),
        ({"interval": float("nan")}, "interval must be a positive finite number of seconds"),
        ({"deadline": None}, "deadline must be a number of seconds, not NoneType"),
        ({"deadline": False}, "deadline must be a number of seconds, not bool"),
        ({"grace": 5.0, "deadline": 5.0}, "grace (5 s) must be shorter than deadline (5 s)"),
        ({"gates": {"flush": True}}, "gates must be a DeriverGates or None, not dict"),
        ({"gates": True}, "gates must be a DeriverGates or None, not bool"),
    ],
)
def test_a_bad_argument_is_a_config_error_naming_it(options: dict[str, Any], words: str) -> None:
    arguments: dict[str, Any] = {
        "session_id": SESSION,
        "since": ZERO,
        "grace": 1.0,
        "interval": 0.25,
        "gates": None,
        "deadline": 10.0,
        **options,
    }
    with pytest.raises(roncho.ConfigError) as info:
        DerivationWait(now=0.0, **arguments)
    assert str(info.value).startswith(words)


def test_a_baseline_read_without_session_id_is_refused() -> None:
    """An unfiltered read holds the per-session map; its counts are the workspace's."""
    entry = roncho.SessionQueueStatus(
        session_id="abc",
        total_work_units=1,
        completed_work_units=1,
        in_progress_work_units=0,
        pending_work_units=0,
    )
    whole = status(1, 1, sessions={"abc": entry})
    words = (
        r"^since holds a per-session map, so it was read without session_id: read it with "
        r"queue_status\(session_id=\.\.\.\) before the sync$"
    )
    with pytest.raises(roncho.ConfigError, match=words):
        DerivationWait(SESSION, whole, grace=1.0, interval=0.25, gates=None, deadline=5.0, now=0.0)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"flush": 1}, "gates.flush must be True or False"),
        ({"batch_tokens": 0}, "gates.batch_tokens must be at least 1 (None: off), got 0"),
        ({"batch_tokens": True}, "gates.batch_tokens must be an integer or None"),
        ({"batch_tokens": 1.5}, "gates.batch_tokens must be an integer or None"),
        ({"batch_max_age": 0}, "gates.batch_max_age must be a positive finite number of seconds"),
        ({"batch_max_age": "30"}, "gates.batch_max_age must be a number of seconds, not str"),
        ({"deriver_look": 0}, "gates.deriver_look must be a positive finite number of seconds"),
        ({"deriver_look": None}, "gates.deriver_look must be a number of seconds, not NoneType"),
    ],
)
def test_gates_check_themselves(fields: dict[str, Any], words: str) -> None:
    with pytest.raises(roncho.ConfigError) as info:
        DeriverGates(**fields)
    assert str(info.value).startswith(words)


def test_gates_default_to_honchos_own_and_take_a_one_token_gate() -> None:
    gates = DeriverGates()
    assert (gates.flush, gates.batch_tokens, gates.batch_max_age) == (False, 512, 1800.0)
    assert gates.deriver_look == DEFAULT_DERIVER_LOOK == 45.0
    assert DeriverGates(batch_tokens=1).batch_tokens == 1


def test_gates_in_words() -> None:
    assert DeriverGates(flush=True).describe().startswith("flush is on")
    assert DeriverGates(batch_tokens=None, batch_max_age=30).describe() == (
        "a batch is released 30 s after its oldest message"
    )
    assert "never released" in DeriverGates(batch_tokens=None, batch_max_age=None).describe()


def test_the_outcome_is_a_plain_immutable_record() -> None:
    outcome = Script([status(1, 1)]).run()
    with pytest.raises(AttributeError, match="cannot assign to field 'state'"):
        outcome.state = "waiting"  # type: ignore[misc]
    assert outcome.replace() == outcome and outcome.replace(state="waiting") != outcome
    assert str(outcome).startswith("done: 1 new queue item(s) of session 's1'")


def outcome_of(state: str, **fields: Any) -> DerivationOutcome:
    counts = {"new_work_units": 2, "pending": 1, "in_progress": 0, "completed": 1}
    base: dict[str, Any] = {"session_id": SESSION, "workspace_in_progress": None, **counts}
    base.update(first_seen=None, elapsed=3.456, reads=4)
    return DerivationOutcome(state=state, **{**base, **fields})  # type: ignore[arg-type]


SESSION_WORDS = "session 's1' has 1 pending, 0 in progress, 1 completed"
SEEN_WORDS = ", first seen at 0.50 s"


@pytest.mark.parametrize(
    ("state", "fields", "words"),
    [
        ("done", {}, "done: 2 new queue item(s) of session 's1', all finished by 3.46 s"),
        (
            "done",
            {"first_seen": 0.5},
            f"done: 2 new queue item(s) of session 's1'{SEEN_WORDS}, all finished by 3.46 s",
        ),
        (
            "nothing_queued",
            {},
            "nothing queued: no new work for session 's1' appeared within 3.46 s (its senders "
            "are not observed, reasoning is off, or the server enqueues slower than the grace "
            "period)",
        ),
        ("still_working", {}, f"still working after 3.46 s: {SESSION_WORDS}"),
        (
            "still_working",
            {"first_seen": 0.5, "workspace_in_progress": 3},
            f"still working after 3.46 s: {SESSION_WORDS}{SEEN_WORDS}",
        ),
        (
            "batching",
            {"workspace_in_progress": 0},
            f"batching after 3.46 s: {SESSION_WORDS}, nothing in progress in the workspace; "
            "the deriver batches",
        ),
        (
            "batching",
            {
                "first_seen": 0.5,
                "workspace_in_progress": 0,
                "gates": DeriverGates(batch_tokens=None, batch_max_age=None),
                "released_by": 1845.6,
            },
            f"batching after 3.46 s: {SESSION_WORDS}{SEEN_WORDS}, nothing in progress in the "
            "workspace; no gate is set, so a batch is never released by itself; the age gate "
            "releases it by 1846 s from the wait's start",
        ),
        (
            "waiting",
            {},
            f"waiting after 3.46 s: {SESSION_WORDS}; the queue does not say why (batching, or a "
            "backlog it does not show)",
        ),
        (
            "waiting",
            {"first_seen": 0.5, "workspace_in_progress": 2},
            f"waiting after 3.46 s: {SESSION_WORDS}{SEEN_WORDS}; 2 in progress in the "
            "workspace; the queue does not say why (batching, or a backlog it does not show)",
        ),
    ],
)
def test_each_outcome_says_in_words_what_the_wait_saw(
    state: str, fields: dict[str, Any], words: str
) -> None:
    """str(outcome) is what a caller logs: each state's sentence, with the first sighting,
    the workspace's count and the gates' release time only where the wait has them."""
    assert str(outcome_of(state, **fields)) == words


def verdict_after(
    answers: list[tuple[float, QueueStatus]], *, gates: DeriverGates, deadline: float = 60.0
) -> Read | Pause | DerivationOutcome:
    """Session reads at the given times, each followed by the workspace read it asks for
    (quiet); what the wait says next, at the last read's time."""
    wait = DerivationWait(
        SESSION, ZERO, grace=1.0, interval=0.25, gates=gates, deadline=deadline, now=0.0
    )
    step: Read | Pause | DerivationOutcome = Pause(seconds=0.0)
    for at, answer in answers:
        step = wait.next(at)
        assert isinstance(step, Read) and step.session_id == SESSION
        wait.received(step, answer)
        step = wait.next(at)
        if isinstance(step, Read) and step.session_id is None:
            wait.received(step, ZERO)
            step = wait.next(at)
    return step


PENDING = status(1, pending=1)


@pytest.mark.parametrize(
    ("answers", "gates", "batching"),
    [
        # A whole look (3 s) pending since first seen, the age gate past the bound: batching.
        ([(0.0, PENDING), (3.0, PENDING)], DeriverGates(deriver_look=3.0), True),
        ([(0.0, PENDING), (2.99, PENDING)], DeriverGates(deriver_look=3.0), False),
        # The age gate opens just after the 60 s bound: batching; at the bound itself, the
        # wait would see the release, so it goes on.
        (
            [(0.0, PENDING), (3.0, PENDING)],
            DeriverGates(batch_max_age=60.5, deriver_look=3.0),
            True,
        ),
        ([(0.0, PENDING), (3.0, PENDING)], DeriverGates(batch_max_age=60, deriver_look=3.0), False),
        # Some of the session's work in progress at the look: the deriver has taken it.
        (
            [(0.0, PENDING), (3.0, status(2, in_progress=1, pending=1))],
            DeriverGates(deriver_look=3.0),
            False,
        ),
    ],
)
def test_early_batching_is_said_exactly_when_a_look_has_passed_and_the_gate_is_past_the_bound(
    answers: list[tuple[float, QueueStatus]], gates: DeriverGates, batching: bool
) -> None:
    verdict = verdict_after(answers, gates=gates)
    if batching:
        assert isinstance(verdict, DerivationOutcome) and verdict.state == "batching"
        assert verdict.elapsed == answers[-1][0]
    else:
        assert isinstance(verdict, (Read, Pause))  # the wait goes on


def test_the_bound_before_a_read_past_the_grace_without_new_work_is_nothing_queued() -> None:
    """The one read took the whole bound and showed only the baseline's own work (in
    progress, or pending): no new work was seen, whatever the old work is doing."""
    for old in (status(1, in_progress=1), status(1, pending=1)):
        script = Script([old], since=old, gates=DeriverGates(), deadline=3.0, read_takes=3.0)
        outcome = script.run()
        assert outcome.state == "nothing_queued" and outcome.elapsed == 3.0
        assert outcome.first_seen is None and outcome.reads == 1


def test_a_wait_first_asked_after_its_bound_ends_with_the_baselines_counts() -> None:
    since = status(5, 3, in_progress=1, pending=1)
    wait = DerivationWait(SESSION, since, grace=1.0, interval=0.25, gates=None, deadline=5.0, now=0)
    outcome = wait.next(6.0)
    assert isinstance(outcome, DerivationOutcome) and outcome.state == "nothing_queued"
    assert (outcome.pending, outcome.in_progress, outcome.completed) == (1, 1, 3)
    assert (outcome.reads, outcome.elapsed) == (0, 6.0)


def test_work_finished_before_the_grace_ended_is_waiting_at_the_bound_not_batching() -> None:
    """Seen pending (the workspace quiet), then finished, but the bound came before a read
    past the grace: more of the sync's items could still appear, so not "done", and with
    nothing pending not "batching" either."""
    wait = DerivationWait(
        SESSION, ZERO, grace=1.0, interval=0.25, gates=DeriverGates(), deadline=3.0, now=0.0
    )
    for answer in (status(1, pending=1), ZERO):  # the session, then the workspace it asks for
        read = wait.next(0.0)
        assert isinstance(read, Read)
        wait.received(read, answer)
    assert isinstance(wait.next(0.0), Pause)
    read = wait.next(0.25)
    assert isinstance(read, Read) and read.session_id == SESSION
    wait.received(read, status(1, 1))  # a read that lasts past the bound
    outcome = wait.next(3.0)
    assert isinstance(outcome, DerivationOutcome) and outcome.state == "waiting"
    assert outcome.workspace_in_progress == 0 and outcome.pending == 0


def test_a_batch_exactly_at_its_age_gate_and_a_look_is_still_batching() -> None:
    gates = DeriverGates(batch_max_age=1.0, deriver_look=2.0)
    wait = DerivationWait(SESSION, ZERO, grace=1.0, interval=0.25, gates=gates, deadline=3.5, now=0)
    for at in (0.0, 3.0):  # the read at 3.0 s is at the gate (1 s) plus the look (2 s)
        read = wait.next(at)
        assert isinstance(read, Read) and read.session_id == SESSION
        wait.received(read, PENDING)
        read = wait.next(at)
        assert isinstance(read, Read) and read.session_id is None
        wait.received(read, ZERO)
    outcome = wait.next(3.5)
    assert isinstance(outcome, DerivationOutcome) and outcome.state == "batching"


def test_work_finished_within_the_grace_asks_nothing_of_the_workspace() -> None:
    """Only pending work with none in progress sends a workspace read; finished work
    waits for the grace with session reads alone. A short grace gives a short elapsed."""
    script = Script([status(1, 1)], grace=0.5)
    outcome = script.run()
    assert outcome.state == "done" and outcome.workspace_in_progress is None
    assert {who for _, who in script.log} == {SESSION}
    assert outcome.elapsed == pytest.approx(0.51)

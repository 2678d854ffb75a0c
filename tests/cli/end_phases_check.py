"""What the end-of-run tests check in `--progress json`'s output (README, "The end of a run")."""
import json

ORDER = ["wind_down", "last_commit", "master", "consolidation", "teardown", "mpi_finalize"]


def json_lines(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def check_end_phases(test, stdout, order):
    """Asserts that the end_phase events are `order`, each with its seconds, between the last
    progress line and the summary, and that the summary's "end" repeats them with their sum.
    Returns (phase events, summary)."""
    events = json_lines(stdout)
    kinds = [e["event"] for e in events]
    test.assertEqual(kinds[-1], "summary", stdout)
    phases = [e for e in events if e["event"] == "end_phase"]
    test.assertEqual([p["phase"] for p in phases], order, stdout)
    # Every phase event comes after the last progress line and before the summary.
    first = kinds.index("end_phase")
    test.assertEqual(kinds[first:-1], ["end_phase"] * len(order), stdout)
    test.assertNotIn("end_phase", kinds[:first])
    for p in phases:
        test.assertIsInstance(p["seconds"], float, p)
        test.assertGreaterEqual(p["seconds"], 0.0, p)
    summary = events[-1]
    test.assertEqual([p["phase"] for p in summary["end"]["phases"]], order)
    test.assertEqual([p["seconds"] for p in summary["end"]["phases"]], [p["seconds"] for p in phases])
    test.assertAlmostEqual(summary["end"]["seconds"], sum(p["seconds"] for p in phases), places=9)
    # Each rank says when its last task ended (Unix seconds; 0 when it ended none): what the
    # first phase is timed from.
    for rank in summary["ranks"]:
        if rank["ok"] + rank["failed"] + rank["interrupted"] > 0:
            test.assertGreater(rank["last_task_end"], 1.7e9, rank)
        else:
            test.assertEqual(rank["last_task_end"], 0.0, rank)
    return phases, summary

"""Concept rubrics: shared vocabularies, rules over concept classes, polarity per clause, and `grade --explain`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bot.cli import main
from bot.grading import grade
from bot.grading.matcher import Reply
from bot.grading.rubric import parse_rubric
from bot.grading.rulebook import compiled
from bot.grading.vocabulary import parse_vocabulary, vocabulary

# The issue's illustrative phrasings of answers the phrase lists missed (none is from a labelled set).
ILLUSTRATIONS = [
    ("straggler", "signature", "one box is dragging its feet and the other seven are parked in the collective"),
    ("unoverlapped_allreduce", "signature", "the gradient exchange sits on the critical path after bwd"),
    ("input_starvation", "measurement", "feed it the same tensor over and over and watch it/s"),
    ("launch_bound", "signature", "the cpu is the ceiling: launches and kernels line up, no queue"),
    ("straggler", "fix", "pull that node"),
    ("unoverlapped_allreduce", "measurement", "rerun with `TORCH_DISTRIBUTED_DEBUG=DETAIL` and count the buckets"),
]


@pytest.mark.parametrize(("signature", "part", "answer"), ILLUSTRATIONS)
def test_the_issues_illustrations_earn_their_part(signature: str, part: str, answer: str) -> None:
    assert getattr(grade(signature, answer), part).credit == 1.0


@pytest.mark.parametrize(
    ("signature", "answer"),
    [
        ("straggler", "one rank lags behind and everyone else waits in the all-reduce"),
        ("straggler", "gpu 5 is thermally throttling, the others idle in NCCL"),
        ("input_starvation", "the dl workers are pegged and the gpu sits idle waiting for data"),
        ("launch_bound", "thousands of tiny kernels, the host can't keep up"),
        ("memory_bound_kernel", "the top gemm is bandwidth bound: DRAM pinned, tensor cores idle"),
        ("pipeline_bubbles", "idle wedges from the 1F1B warm-up and cool-down on every stage"),
        ("sync_stall", "every loss.item() forces a host sync that drains the queue"),
        ("alloc_stall", "cudaMalloc every step because the caching allocator keeps missing"),
        ("prefill_blocks_decode", "a 30k-token prefill hogs the iteration and the decode streams stall behind it"),
        ("healthy", "the timeline is clean, nothing wrong at this level"),
        # "one of the ranks" picks a member of the job, it does not hedge; "pausing" is waiting; a run is a trace
        ("straggler", "one of the gpus is throttling and the rest wait in NCCL"),
        ("sync_stall", "the host keeps pausing until the GPU is done, so the device goes idle between bursts"),
        ("healthy", "this run is in good shape; leave it alone"),
        # "the next one" is not somebody: no straggler beside the launch-bound read
        ("launch_bound", "python dispatch is the ceiling, the gpu finishes each tiny op before the next one is queued"),
    ],
)
def test_each_signature_in_other_words(signature: str, answer: str) -> None:
    g = grade(signature, answer)
    assert g.signature.credit == 1.0, g.feedback()
    assert g.named == signature


def test_british_spelling_abbreviations_and_typos_are_one_vocabulary() -> None:
    assert grade("unoverlapped_allreduce", "AR serialised after bwd, not overlapped").signature.credit == 1.0
    assert grade("input_starvation", "the dataloder cant keep up, starvd for data").signature.credit == 1.0
    assert grade("sync_stall", "synchronisation stall from `.item()`").signature.credit == 1.0


def test_slow_serving_iterations_are_not_a_straggler() -> None:
    g = grade("prefill_blocks_decode", "the slow iterations are the ones carrying a big prefill")
    assert (g.named, g.signature.credit) == ("prefill_blocks_decode", 1.0), g.feedback()


def test_typo_tolerance_does_not_turn_ordinary_words_into_rubric_words() -> None:
    # "thing" is two edits from "nothing"; a typo keeps its first letter and about its length.
    reply = Reply.parse("first thing I noticed")
    assert all(t.stem != "noth" for c in reply.clauses for t in c.tokens)


@pytest.mark.parametrize(
    ("signature", "answer", "credit"),
    [
        ("straggler", "it's not a straggler", 0.0),
        ("straggler", "I'd rule out a straggler: every rank computes the same", 0.0),
        ("straggler", "maybe a straggler?", 0.5),
        ("straggler", "I suspect one slow rank, but I'd want to confirm", 0.5),
        ("straggler", "either a straggler or the all-reduce isn't overlapped, can't tell", 0.0),
        ("straggler", "first I thought NCCL was slow, but it's a straggler: rank 3 computes longer", 1.0),
        ("straggler", "yeah sure, a straggler /s", 0.0),
        ("launch_bound", "if it's launch overhead, CUDA graphs; if it's syncs, drop the .item()", 0.0),
        # "zero X" denies X like "no X": the allocator is cleared, the sync stands alone
        ("sync_stall", "zero cudaMalloc in steady state. a branch on a gpu value forces a sync every layer", 1.0),
        ("launch_bound", "sometimes it's launch overhead, sometimes syncs, sometimes memory bandwidth", 0.0),
        # a diagnosis attributed to someone else is not the reply's own claim
        (
            "launch_bound",
            "someone said it's memory bound but the kernels are tiny and the GPU idles between launches. Launch-bound.",
            1.0,
        ),
        # a bare, tentative naming of the culprit component is a hedged diagnosis
        ("input_starvation", "perhaps the input pipeline? the gpu waits at every step start", 0.5),
        # the host (CPU side) being behind is not one member of the job being slow
        ("launch_bound", "the host is behind: kernels finish before the next launch arrives", 1.0),
        ("straggler", "one host is slower than the rest, everyone waits for it in the all-reduce", 1.0),
    ],
)
def test_polarity_and_hedges_are_read_per_clause(signature: str, answer: str, credit: float) -> None:
    assert grade(signature, answer).signature.credit == credit


def test_a_conditional_fix_among_several_earns_half() -> None:
    g = grade("sync_stall", "if it's cudaStreamSynchronize drop the .item(), if cudaMalloc set expandable_segments")
    assert g.fix.credit == 0.5


def test_a_negated_diagnosis_is_not_a_fix() -> None:
    # "the all-reduce is not overlapped" names the problem; it does not propose overlapping it.
    assert grade("unoverlapped_allreduce", "the all-reduce is not overlapped with backward").fix.credit == 0.0


def test_words_of_a_check_do_not_name_a_second_signature() -> None:
    g = grade("pipeline_bubbles", "pipeline bubbles from 1F1B; measure the bubble fraction; straggler ruled out")
    assert g.signature.credit == 1.0


def test_a_dense_catalogue_earns_nothing_but_a_long_answer_that_commits_does() -> None:
    catalogue = (
        "could be a straggler, exposed comm, pipeline bubbles or a sync. check per-rank times, bucket count, "
        "bubble fraction, sync debug mode; drain the node, bucket_cap_mb, more micro-batches, drop .item()"
    )
    assert grade("straggler", catalogue).score == 0.0
    committed = (
        "There are two readings of a long all-reduce on one rank: a slow rank, or an all-reduce that is not "
        "overlapped. Every rank's backward ends at the same time, so nobody is late. It's the gradient all-reduce "
        "serialized after backward: one bucket instead of twenty-five. I'd count the NCCL kernels per step in "
        "cuda_gpu_kern_sum and restore bucketed overlap with bucket_cap_mb=25."
    )
    g = grade("unoverlapped_allreduce", committed)
    assert (g.signature.credit, g.measurement.credit, g.fix.credit) == (1.0, 1.0, 1.0)


def test_every_rubric_rule_uses_known_concepts() -> None:
    known = set(vocabulary().concepts) | {"number", "quantity"}
    for comp in compiled().values():
        for group in (comp.signature, comp.measurement, comp.fix, comp.wrong_fix):
            for phrase in group.rules:
                assert {t[1:] for t in phrase.tokens if t.startswith("@")} <= known, phrase.text


def test_a_rule_with_an_unknown_concept_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown concept"):
        parse_rubric(
            'id = "healthy"\ntitle = "x"\ntell = "a tell long enough"\n'
            '[signature]\nhint = "a hint long enough"\nrules = ["{no_such_concept} bound"]\n'
            '[measurement]\nhint = "a hint long enough"\nrules = ["a"]\n'
            '[fix]\nhint = "a hint long enough"\nrules = ["a"]\n'
        )


def test_a_malformed_vocabulary_is_rejected() -> None:
    with pytest.raises(ValueError, match="bad pattern"):
        parse_vocabulary('[compounds]\nx = ["(unclosed"]\n')
    with pytest.raises(ValueError, match="unknown concept"):
        parse_vocabulary('[concepts.a]\nterms = ["x"]\ninclude = ["b"]\n')
    with pytest.raises(ValueError, match="lower_snake_case"):
        parse_vocabulary('[concepts.Bad]\nterms = ["x"]\n')


def test_grade_explain_shows_concepts_and_rules_per_clause() -> None:
    result = CliRunner().invoke(
        main, ["grade", "--signature", "straggler", "--explain", "one box is dragging its feet. pull that node"]
    )
    assert result.exit_code == 0, result.output
    assert "✓ Signature" in result.output
    assert "concepts:" in result.output and "slow" in result.output and "rank" in result.output
    assert "* straggler/signature: rule “" in result.output
    assert "straggler/fix:" in result.output


@pytest.mark.parametrize(
    ("signature", "answer"),
    [
        (
            "straggler",
            "It's a straggler. Could also be an unoverlapped all-reduce, so check the bucket count. Another "
            "possibility is the dataloader; bump num_workers. Worth ruling out launch overhead too, CUDA graphs help.",
        ),
        (
            "memory_bound_kernel",
            "Memory-bound kernel, clearly. Though it could equally be launch overhead or a sync "
            "stall or input starvation. Fuse the ops, CUDA graphs, drop .item(), more workers.",
        ),
        (
            "input_starvation",
            "Looks like the dataloader.\n- could be a host sync from .item()\n- could be launch "
            "overhead, try CUDA graphs\n- could be the allocator, set expandable_segments\n- raise num_workers",
        ),
    ],
)
def test_a_verdict_followed_by_a_catalogue_earns_nothing(signature: str, answer: str) -> None:
    assert grade(signature, answer).score == 0.0


def test_a_verdict_with_a_rejected_twin_and_a_side_remark_keeps_its_credit() -> None:
    g = grade(
        "straggler",
        "Straggler: rank 3 computes 20% longer, others wait in the all-reduce. Not an overlap "
        "problem. Check nvidia-smi clocks, drain the node.",
    )
    assert (g.signature.credit, g.fix.credit) == (1.0, 1.0)
    g = grade(
        "launch_bound",
        "Launch bound, tiny kernels; maybe a bit of sync too. cuda_api_sum shows launches ≈ "
        "step. CUDA graphs or torch.compile.",
    )
    assert g.signature.credit == 1.0 and g.score > 0.9

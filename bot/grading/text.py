"""Turning a chat reply into clauses of canonical tokens, keeping where each token came from."""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

_STEMMERS = threading.local()  # a snowball stemmer keeps its word in instance state: one per thread


def _stem(word: str) -> str:
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))

# Multi-word and punctuated spellings folded to one token before tokenising.
_COMPOUNDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"\ball[\s_-]?reduc(e|es|ed|ing|tion|tions)\b", " allreduce "),
        (r"\breduce[\s_-]?scatter\b", " reducescatter "),
        (r"\ball[\s_-]?gather\b", " allgather "),
        (r"\bdata[\s_-]?loader(s)?\b", " dataloader "),
        (r"\bdata[\s_-]?loading\b", " dataloader "),
        (r"\bcuda[\s_-]?graphs?\b", " cudagraph "),
        (r"\bhead[\s-]of[\s-](the[\s-])?line\b", " headofline "),
        (r"\binter[\s-]?token[\s-]latenc(y|ies)\b", " itl "),
        (r"\btime[\s-]to[\s-]first[\s-]token\b", " ttft "),
        (r"\btorch\.compile\b", " torchcompile "),
        (r"\bempty_cache\b", " emptycache "),
        (r"\.item\(\)", " itemcall "),
        (r"\.cpu\(\)", " cpucall "),
        (r"\bnum_workers\b", " numworkers "),
        (r"\bpin_memory\b", " pinmemory "),
        (r"\bprefetch_factor\b", " prefetchfactor "),
        (r"\bpersistent_workers\b", " persistentworkers "),
        (r"\bnon[_\s-]?blocking\b", " nonblocking "),
        (r"\bbucket_cap_mb\b", " bucketcap "),
        (r"\bfind_unused_parameters\b", " findunusedparameters "),
        (r"\bexpandable_segments\b", " expandablesegments "),
        (r"\bmemory_stats\b", " memorystats "),
        (r"\bnum_alloc_retries\b", " allocretries "),
        (r"\bset_sync_debug_mode\b", " syncdebugmode "),
        (r"\bcuda_api_sum\b", " cudaapisum "),
        (r"\bcuda_gpu_kern_sum\b", " cudagpukernsum "),
        (r"\btorch_distributed_debug\b", " torchdistributeddebug "),
        (r"\b1f1b\b", " onefoneb "),
        (r"\bzero[\s-]bubble\b", " zerobubble "),
        (r"\bnvidia-smi\b", " nvidiasmi "),
        (r"\bflash[\s-]?attention\b", " flashattention "),
        (r"\bco[\s-]?schedul", " coschedul"),
        (r"\bmicro[\s-]?batch", " microbatch"),
        (r"\bpre[\s-]?fill", " prefill"),
        (r"\bkv[\s-]?cache\b", " kvcache "),
        (r"\bhbm\b", " dram "),
        (r"\bmem(ory)?[\s-]?bandwidth\b", " dram bandwidth "),
        (r"\bsm[\s-]?clocks?\b", " smclock "),
        (r"\bn[\s-]?sight[\s-]?compute\b", " ncu "),
        (r"\bn[\s-]?sight[\s-]?systems\b", " nsys "),
        (r"\bmulti[\s-]?rank\b", " multirank "),
        (r"\bper[\s-]rank\b", " perrank "),
        (r"\bper[\s-]stage\b", " perstage "),
        (r"\bper[\s-]step\b", " perstep "),
        (r"\bfill[\s/]+drain\b", " filldrain "),
    )
)

# Single tokens: abbreviations and spellings folded to the rubric's word.
_ALIASES = {
    "ar": "allreduce",
    "allreduces": "allreduce",
    "dl": "dataloader",
    "bwd": "backward",
    "fwd": "forward",
    "pp": "pipeline",
    "hol": "headofline",
    "comms": "comm",
    "communication": "comm",
    "communications": "comm",
    "collectives": "collective",
    "gpus": "gpu",
    "syncs": "sync",
    "synchronisation": "synchronization",
    "synchronise": "synchronize",
    "synchronised": "synchronized",
    "synchronising": "synchronizing",
    "serialised": "serialized",
    "serialise": "serialize",
    "serialisation": "serialization",
    "utilisation": "utilization",
    "optimise": "optimize",
    "optimised": "optimized",
    "fragmented": "fragmentation",
    "mallocs": "malloc",
    "cudamalloc": "malloc",
    "cudafree": "malloc",
    "cudamallocs": "malloc",
    "synchronize": "sync",
    "synchronization": "sync",
    "synchronizing": "sync",
    "synchronized": "sync",
    "synchronizes": "sync",
    "ddp's": "ddp",
    "cudastreamsynchronize": "cudastreamsynchronize",
    "kernels": "kernel",
    "launches": "launch",
    "launching": "launch",
    "launched": "launch",
    "bubbles": "bubble",
    "stragglers": "straggler",
    "workers": "worker",
    "mfu": "mfu",
    "nccl's": "nccl",
    "ncu's": "ncu",
    "throttled": "throttle",
    "throttling": "throttle",
    "bandwith": "bandwidth",
    "thermally": "thermal",
    "cpus": "cpu",
    "ranks": "rank",
    "stages": "stage",
    "microbatches": "microbatch",
}

COMMA_GAP = 5

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "there",
        "and",
        "with",
        "by",
        "as",
        "from",
        "into",
        "i",
        "i'd",
        "i'm",
        "we",
        "our",
        "you",
        "your",
        "so",
        "just",
        "very",
        "also",
        "then",
        "which",
        "who",
        "what",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "would",
        "will",
        "can",
        "could",
        "should",
        "my",
        "me",
        "us",
        "they",
        "them",
        "their",
    ]
)

_CONTROL = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f]")
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*")
_MARKDOWN = re.compile(r"[*`>#~|]+|(?<!\w)_+|_+(?!\w)")
_MENTION = re.compile(r"<[@#!][^>]{0,80}>")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9']*[a-z0-9]|[a-z0-9]")
# Clause boundaries: sentence punctuation, dashes, and the turns where one claim ends and another begins.
_CLAUSE = re.compile(
    r"[.;!?\n]+(?:\s|$)|:\s|\s[-–—]+\s|\s+(?:but|however|although|though|whereas|instead|actually|rather)\s+"
    r"|,\s*(?=(?:it'?s|it is|its|this is|that'?s|that is|the real|the actual|so)\b)"
)


@dataclass(frozen=True, slots=True)
class Token:
    stem: str  # canonical, stemmed
    start: int  # character offsets in the clause's folded text
    end: int
    position: int = 0  # word position; a comma counts as COMMA_GAP words, so phrases rarely span one
    word: str = ""  # the word as written (lower case), for typo matching


@dataclass(frozen=True, slots=True)
class Clause:
    text: str  # lower case, compounds folded: what polarity rules read
    quote: str  # the same clause as the person wrote it (cleaned): what feedback quotes
    tokens: tuple[Token, ...]  # content tokens (no stop words)


def clean(raw: str) -> str:
    """NFKC, no control characters, no mentions, no markdown decoration; case kept for quoting."""
    text = unicodedata.normalize("NFKC", raw)
    text = _CONTROL.sub(" ", text)
    text = _MENTION.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _MARKDOWN.sub(" ", text)
    return text.replace("’", "'").replace("‘", "'")


def fold(piece: str) -> str:
    text = piece.lower()
    for pattern, repl in _COMPOUNDS:
        text = pattern.sub(repl, text)
    return text


def _lower_same_length(text: str) -> str:
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


@lru_cache(maxsize=65536)
def canonical(word: str) -> str:
    word = word.strip("'./")
    word = _ALIASES.get(word, word)
    if word.endswith("n't"):
        return "not"
    if any(ch.isdigit() for ch in word):
        return word
    stem = _stem(word)
    return _ALIASES.get(stem, stem)


def clauses(cleaned: str) -> list[Clause]:
    """Split cleaned text into clauses of content tokens."""
    low = _lower_same_length(cleaned)
    out: list[Clause] = []
    pos = 0
    for m in [*_CLAUSE.finditer(low), None]:
        end = m.start() if m else len(low)
        # A question mark stays with its clause: "a straggler?" is a hedge.
        piece = fold(low[pos:end]) + ("?" if m is not None and "?" in m.group() else "")
        tokens = []
        position = 0
        last_end = 0
        for t in _TOKEN.finditer(piece):
            position += 1 + COMMA_GAP * piece.count(",", last_end, t.start())
            last_end = t.end()
            if t.group() not in STOPWORDS:
                tokens.append(Token(canonical(t.group()), t.start(), t.end(), position, t.group()))
        if tokens:
            out.append(Clause(piece, cleaned[pos:end].strip(), tuple(tokens)))
        pos = m.end() if m else len(low)
    return out


_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(ms|msec|milliseconds?|µs|us|microseconds?|s|sec|seconds?|%|"
    r"percent|gb/s|tb/s|gbps|gb|mb|x|×|mhz|tflop/s|tflops|flop/b|kernels?)?(?![\w/])"
)


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str  # "ms", "us", "s", "%", "gb/s", "x", "" ...
    text: str


def quantities(text: str) -> list[Quantity]:
    out = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", ""))
        unit = (m.group(2) or "").lower()
        unit = {
            "msec": "ms",
            "millisecond": "ms",
            "milliseconds": "ms",
            "µs": "us",
            "microsecond": "us",
            "microseconds": "us",
            "sec": "s",
            "second": "s",
            "seconds": "s",
            "percent": "%",
            "×": "x",
            "gbps": "gb/s",
            "tflops": "tflop/s",
            "kernel": "kernels",
        }.get(unit, unit)
        out.append(Quantity(value, unit, m.group(0)))
    return out

"""How a clause holds what it names: negated, exonerated, hedged, offered as one possibility, a condition, a check.

Each pattern reads one clause (lower case, compounds folded). `ClauseReading` computes each answer at most once per
clause and skips the patterns a clause holds no keyword for (most clauses hold none).
"""

from __future__ import annotations

import re

from .boundary import compile_hoisted
from .literals import Gated
from .text import Clause
from .wordgate import AnyAlternative, WordGate, words

LOOK = 100  # characters of context the polarity patterns read before or after a match

# What a guess is called when a reply owns it as its only one ("my only theory", "only idea I have"): one list for
# the three patterns that read it (a tentative diagnosis, a hedge after it, a guessing question's answer).
_GUESS_NOUNS = "guess|idea|theory|read|reading|hunch|hypothesis|candidate|suspect|lead"
_GUESS_NOUN = "(?:" + _GUESS_NOUNS + ")"
_OWNED_GUESS = r"only " + _GUESS_NOUN + r" (?:i have|i'?ve got|so far)"
_NEGATION_BEFORE = compile_hoisted(
    r"(?:\bnot\b|\bno\b|\bzero\b|n't\b|\bnever\b|\bnor\b|\bwithout\b|\brather than\b|\binstead of\b"
    r"|\brul(?:e|ed|ing) out\b"
    r"|\bunlikely\b|\bdoubt\b|\bneither\b|\bagainst\b|\bnot a\b|\bisn'?t\b|\bexclud\w*|\breject\w*|\bdismiss\w*"
    r"|\bfirst (?:i )?(?:thought|guess\w*)|\bmy first (?:guess|reflex|instinct|thought|read|hunch|impression)\b"
    r"|\bat first\b|\bfirst (?:i )?(?:was )?think\w*|\bi was thinking\b"
    r"|\b(?:was|were) (?:about|going) to (?:say|call|blame|go with)\b"
    r"|\balmost (?:said|called|blamed|went with)\b|\bwould(?:'ve| have) (?:said|guessed|called|blamed)\b"
    r"|\b(?:could|might|would)(?:'ve| have) been\b"  # "could've been a straggler, but every rank …"
    r"|\b(?:made|had|got) me (?:think\w*|suspect\w*|wonder\w*)|\btempting\b|\bthe alternative\b"
    r"|\btempts? (?:you|one|us|me|people)\b"  # "… tempts you to tune NCCL" (not "I'm tempted to say X")
    r"|(?<!nothing )(?<!nothing's )(?<!nothings )(?<!nothing is )\bwrong\b"  # "nothing wrong in …" denies nothing
    r"|\bconsidered\b|\bweighed\b|\bthought about\b|\bwondered\b|\bwas worried\b"
    r"|\b(?:cross|crossed|crossing|strike|struck|striking) off\b|\bset aside\b"  # "we can cross off launch overhead"
    # the look-alike named as a foil: "the twin here is allocator stall, and the tell is …"
    r"|\b(?:the|its|a) (?:twin|look-?alike|doppelganger|decoy|usual confusion)(?: here| to rule out| to watch for)?"
    r" (?:is|would be|being|=)\b"
    r"|\b(?:looked|checked|asked myself) (?:at |into )?(?:whether|if)\b"  # "I looked at whether it's X, but …"
    r"|\b(?:someone|somebody|people|others|folks)(?: \w+)? (?:said|says|suggested|claimed|thought|blamed|recommend\w*"
    r"|(?:will|would|might) (?:tell|say|suggest))\b"
    r"|\b(?:someone|somebody)(?:'s| is) (?:about|going) to (?:suggest|say|propose|tell you)\b)"
    r"(?:[^\w.;,→]+(?!or\b|and\b|nor\b)[\w'-]+){0,4}[^\w.;,→]*$"  # ≤ 4 words between negation and match, no "or"
    # "this isn't launch-bound or a host sync": one denial over both
    r"|(?:\b(?:isn'?t|is not|aren'?t|are not|wasn'?t|was not|neither)|\b(?:it'?s|that'?s|this is|it is) not)"
    r"\s+(?:a |an |the )?[\w-]+(?:\s[\w-]+)?\s+(?:or|nor)\s+"
    r"(?:a |an |the )?$"
    # "no stray syncs or mallocs", "without gaps or syncs": one "no" over a short list joined by "or"
    r"|\b(?:no|without|zero)\s+(?:[\w-]+\s+){1,2}(?:or|nor)\s+(?:a |an |the |any )?$"
    r"|\bnothing\s+$"  # "sitting after backward with nothing overlapping": the state is denied
    # "it is not that the eighth machine is always late and the other seven sit at the barrier": the frame denies
    # the whole picture it opens, however long
    r"|\b(?:(?:it|this|that)(?:'?s| is| was) not|(?:it|this|that) (?:isn'?t|wasn'?t)|not) (?:that|because|as if)\b"
    r"[^.;,→]*$"
    # "I considered the allocator and a host sync": a weighing verb sets both candidates aside, not just the first
    r"|\b(?:considered|thought about|wondered about|weighed|ruled out|excluded)\s+(?:a |an |the )?[\w-]+"
    r"(?:\s[\w-]+)?\s+(?:and|or|nor)\s+(?:a |an |the )?$"
)
# A denial that opens a list reaches every item of it: "it's bubbles, not a slow stage, a throttled GPU or comm". An
# item is a short name (no verb of its own: "not a slow stage, more micro-batches will fix it" ends the denial), and
# a middle item needs the list closed by "or"/"nor" after it, so a denial followed by a fresh clause reaches nothing.
_LIST_WORD = (
    r"(?!(?:will|would|should|could|can|might|may|is|are|was|were|fix|fixes|helps?|so|but|and|then)\b)[\w./()+'-]+"
)
# (the article is possessive: read as an ordinary word too, it gave every item two readings, and a list that never
# closed was tried in 2^n ways — seconds for twenty items)
_LIST_ITEM = rf"(?:(?:a|an|the|any|one)\s+)?+{_LIST_WORD}(?:\s+{_LIST_WORD}){{0,3}}"
# ("not sure, a slow stage, a throttled GPU or comm" doubts, "not only A, B or C" adds: neither denies the list)
# The denial opens the list: it starts the clause or follows a comma, a copula or "but"/"and" ("the all-reduce not
# overlapping, or a straggler, or …" names a state in its first item; it denies nothing after it)
_DENIAL_OPENS = (
    r"(?:(?:(?:^|,)\s*|\b(?:it'?s|that'?s|this is|it is|is|are|was|were|but|and|just|definitely|clearly)\s+)"
    # ("no overlap, a slow rank or the fabric": a bare "no" may name a state, the first item of a list of rivals)
    r"(?:not|neither|nor|never|rather than|instead of|no (?:amount|sign|trace|hint) of)\b"
    r"|\b(?:isn|aren|wasn|weren)'?t\b"
    # contrastive wherever it stands: "the GPU waits on the loader rather than on syncs, mallocs or launches"
    r"|\b(?:rather than|instead of)(?:\s+(?:on|from|in|at|with|by))?\b)"
    r"(?!\s+(?:sure|certain|convinced|positive|idea|clue|doubt|only|just|yet|quite|100)\b)"
)
_DENIED_LIST_BEFORE = re.compile(
    rf"(?:{_DENIAL_OPENS})\s+{_LIST_ITEM}(?:\s*,\s*{_LIST_ITEM})*(?:\s*,\s*|\s*,?\s+(?P<last>or|nor)\s+)"
    r"(?:(?:a|an|the|any|one)\s+)?$"
)
_LIST_CLOSED_AFTER = re.compile(
    rf"{_LIST_ITEM}(?:\s*,\s*{_LIST_ITEM})*\s*,?\s+(?:or|nor)\s+{_LIST_ITEM}\s*(?:[.;:!?)—–]|\s-|$)"
)
# "bubbles, not a slow stage, a throttled GPU or comm": where a list of options opens with a denial
_DENIED_LIST_OPEN = re.compile(rf"(?:{_DENIAL_OPENS})\s+{_LIST_ITEM}(?:\s*,\s*{_LIST_ITEM})*$")
# "… is out": eliminated ("out of the picture" too; not "out of memory", "out by 120 ms", "flat out" — see below)
_OUT = r" out(?:\s+of\s+the\s+(?:picture|question|running)|(?!\s+(?:of|by|to|at|for|there|front|loud|in)\b))"
_OUT_AFTER = re.compile(_OUT)  # right after a name that ends in "'s" ("launch overhead's out")
_EXONERATED_AFTER = compile_hoisted(
    # (a comma and a new subject start a verdict on something else: "nothing is wrong in this trace, all looks as
    # expected" does not clear "nothing wrong")
    r"^(?:(?!,\s*(?:all|everything|this|that|the rest|we|they|i|both)\b)[^.;]){0,25}?"
    r"(?:\b(?:is|are|was|looks?|seems?|appears?)\s+(?:fine|ok|okay|good|normal|innocent|irrelevant|"
    r"healthy|a red herring|not (?:it|the (?:problem|issue|cause|culprit|bottleneck))"
    # dismissed as too small to matter: "the .item() is negligible", "that sync is harmless here"
    r"|negligible|harmless|insignificant|a non-?issue|noise)|\bruled out\b|"
    r"\b(?:isn'?t|aren'?t|wasn'?t|is not|are not|was not)\s+(?:it|the (?:problem|issue|cause|culprit|bottleneck))"
    r"|\bis a red herring\b|\b(?:can|could)\s*(?:not|n't)\s+(?:explain|account)|\bdoesn'?t (?:explain|fit)"
    r"|\bwouldn'?t (?:explain|fit)|\bis wrong\b|\bis a trap\b|\bis the trap\b"
    # cleared in other words: "the allocator checks out", "launch overhead can't be it", "the fabric is on spec"
    r"|\bchecks? out\b|\b(?:can'?t|cannot|couldn'?t) be (?:it|that|the (?:problem|issue|cause|culprit))\b"
    # eliminated in everyday words: "launch overhead is out", "syncs and the allocator are both out", "the fabric is
    # off the table", "X can be crossed off", "a straggler crossed my mind" (not "out of memory", "out by 120 ms")
    r"|(?:\b(?:is|are|was|were)(?: (?:both|all|also|now|clearly|definitely|obviously))?|'s)"
    + _OUT
    + r"|\b(?:is|are|was|were|'s) off the (?:table|list)\b"
    r"|\b(?:can|could|may)(?: \w+)? be (?:crossed|struck|ticked|scratched) off\b"
    r"|\b(?:crossed|crosses) my mind\b|\b(?:came|comes|sprang|springs) to mind\b|\boccurred to me\b"
    r"|\b(?:is|are|was|looks?) (?:on spec|within spec|as expected|clean)\b"
    r"|\b(?:would be|was|is) (?:my|the|everyone'?s) first (?:guess|thought|read|instinct|reflex|hypothesis)"
    r"|\bat first (?:glance|sight)|\bon the surface\b|\b(?:made|had|got) me (?:think|suspect|wonder))"
    # "ncu won't tell you", "NCCL tuning won't help", "leave NCCL_ALGO / NCCL_PROTO alone": right after the thing
    # (not "torch.compile alone won't fix all of it", "more workers alone should help": a remedy said to be one part)
    r"|^(?:\s*[/,]\s*[\w.]+)*\s+alone\b(?!\s+(?:won'?t|will|wouldn'?t|would|isn'?t|is|aren'?t|are|doesn'?t|does"
    r"|can'?t|cannot|can|could|might|may|should|probably|likely|only|just)\b)"
    r"|^\s*(?:won'?t|will not|wouldn'?t|would not|doesn'?t|does not|can'?t|cannot) (?:tell|help|show|settle|distinguish"
    r"|do anything|change anything|move the needle)\b"
    # a fix dismissed as futile: "tuning NCCL would be rearranging deck chairs", "… is pointless here"
    r"|^[^.;]{0,20}?\b(?:would|will|is|are)(?: just)? (?:be )?(?:rearranging|pointless|useless|futile|a waste|wasted"
    r"|cargo[\s-]cult)\b"
    r"|^[^.;]{0,45}?\bto rule (?:that|it|this) out\b"
)
# The check a verdict waits for: "I wouldn't commit without an ncu pass", "can't say until I see per-rank times".
_WANTS_CHECK_BEFORE = re.compile(
    r"\b(?:commit|call it|say|conclude|bet|be sure|sign off|decide)\b[^.;]{0,25}"
    r"\b(?:without|until|before)\b[^.;]{0,25}$"
)
# A state denied before the check ("nccl after backward not overlapped TORCH_DISTRIBUTED_DEBUG=DETAIL shows 1 bucket",
# "comm isn't hidden, kern_sum shows one allreduce"): the negation has its own word, it does not reach the check
# (unlike "not confirmed with ncu", "haven't run nsys", where the negated word is the check being done).
_DENIED_STATE_BEFORE = re.compile(
    r"\b(?:not|isn'?t|aren'?t|wasn'?t|weren'?t)\s+(?!(?:checked|verified|confirmed|measured|profiled|tested|timed"
    r"|counted|looked|seen|proven|run|done|been|yet|even|sure|certain)\b)\w+(?:ed|en|ing)\b"
)
# A remedy already in place is described, not proposed: "CUDA graphs keep the launch queue 3 ms ahead", "workers are
# already at 8", "already using expandable_segments", "with FlashAttention already on".
_IN_PLACE_BEFORE = compile_hoisted(
    r"\balready (?:use[sd]?|using|uses|has|have|had|runs?|running|on|enabled|with|got)\b[^.;,]{0,20}$"
)
_IN_PLACE_AFTER = compile_hoisted(
    r"^[^.;,]{0,12}?\b(?:(?:is|are|was|were) (?:already|on|enabled|in place|in use|active|turned on|set to)\b"
    r"|already (?:on|enabled|in place|in use|active|at|set)\b)"
    r"|^\s*(?:already )?keeps?\b"
)
_STATE_AFTER = compile_hoisted(
    # a remedy word as the subject of a state that holds now: "prefetch is working", "the comm was mostly hidden",
    # "NCCL is overlapping fine", "flash attention is the top line", "FlashAttention dominates the profile"
    r"^[^.;,]{0,12}?\b(?:is|are|was|were)(?: (?:still|now|all|almost|quite|pretty|also|\w+ly))*"
    r" (?:working|hidden|overlapped|overlapping|running|firing|kicking in|doing (?:its|their) job|effective|in effect"
    r"|(?:the |a )?(?:top|biggest|largest|longest|heaviest|hottest|widest|dominant|most expensive)(?: [\w-]+)?"
    r" (?:line|kernel|row|bar|op|slice|entry|item|block|consumer|cost)s?)\b"
    r"|^[^.;,]{0,12}?\b(?:dominates|dominated|tops|topped|shows up as|showup as)\b"
)
# A remedy's words spread over a copula describe the state it names ("the comm was almost fully hidden", "the
# all-reduce is overlapped with backward"), unless a directive or a condition puts that state ahead ("make sure the
# comm is hidden", "once the comm is hidden", "it needs to be overlapped" has no finite copula at all).
_STATE_ADVERB = r"(?: (?:still|now|all|almost|quite|pretty|also|being|\w+ly))*"
# (a relative clause inside names which thing to act on: "drain whichever node is throttled", "swap the one that's
# failing")
_COPULA_INSIDE = re.compile(
    r"^(?:(?!\b(?:which|whichever|whatever|that|who|where|whose)\b).)*\b(?:is|are|was|were)"
    + _STATE_ADVERB
    + r" [\w-]+(?:ed|en|ing)\b"
)
# "the comm was fully hidden under backward": the copula just before a remedy that opens with a participle
_COPULA_BEFORE = re.compile(r"\b(?:is|are|was|were)" + _STATE_ADVERB + r"\s+$")
_PARTICIPLE_START = re.compile(r"[\w-]+(?:ed|en|ing)\b")
_RELATIVE_COPULA_BEFORE = re.compile(
    r"\b(?:which|whichever|whatever|that|who|where|whose)\b(?:\s+[\w'-]+){0,2}\s+(?:is|are|was|were)"
    + _STATE_ADVERB
    + r"\s+$"
)
_STATE_WANTED_BEFORE = compile_hoisted(
    r"\b(?:make sure|ensure|ensuring|so that|until|till|once|if|when|unless|whether|want|wants|need|needs|should"
    r"|must|check|verify|confirm|see|goal|aim|target)\b[^.;]{0,40}$"
    # "the fix is overlapping comm with backward": the subject is the remedy itself
    r"|\b(?:fix|answer|remedy|solution|cure|plan|move|lever|idea|option|next step|way forward)\b[^.;,]{0,15}$"
)
# A remedy denied its effect right after it is named: "tuning NCCL won't touch it", "more workers wouldn't change the
# picture", "bucket_cap_mb here isn't going to matter" (a few words may come between, not a new subject: "raise
# bucket_cap_mb so it won't stall" keeps the fix; "can't hurt" recommends it).
_FUTILE_AFTER = re.compile(
    r"(?:\s+(?!(?:so|and|or|but|because|then|since|it|this|that|they|we|i|you|which|until|if)\b)[\w'-]+){0,2}\s+"
    r"(?:won'?t|will not|wouldn'?t|would not|doesn'?t|does not|can'?t|cannot|isn'?t going to|is not going to"
    r"|aren'?t going to|are not going to|did(?:n'?t| not))"
    # a verb of effect: the remedy is said to do nothing ("the hooks never get a look in" describes a failure)
    r"(?: (?:really|even|actually|ever|necessarily|by itself|on its own))?\s+(?:help|touch|fix|solve|matter|change"
    r"|move|improve|speed|shorten|shrink|reduce|remove|close|cure|address|affect|recover|save|buy|work|get rid"
    r"|do (?:anything|much|a thing|squat|it)|make (?:a|any|much) (?:difference|dent))\w*\b"
)
# A remedy said to be one part of the cure, not futile: "CUDA graphs alone won't", "won't on its own fix", "won't fix
# all of it", "won't close the whole gap", "won't get rid of it entirely".
_ONE_PART = re.compile(r"\b(?:alone|by (?:it|them)sel(?:f|ves)|on (?:its|their) own|in isolation|single-handedly)\b")
_NOT_ALL_AFTER = re.compile(
    r"\s+(?:(?:it|them|this|that|the (?:gap|problem|issue|stall|regression))\s+)?(?:all\b|everything\b|entirely\b"
    r"|completely\b|fully\b|the whole\b|(?:the )?(?:rest|lot)\b|by (?:it|them)sel(?:f|ves)\b|on (?:its|their) own\b"
    r"|alone\b|single-handedly\b)"
)
# A remedy's words used as a modifier of a noun that names a thing the job has ("suspicious for a fixed-shape job",
# "the refactor that split the fused MLP", "most of the time is in the flash-attention kernel"): the determiner
# follows a preposition, or a verb in a relative clause, so the phrase is not the object of a remedy verb ("use a
# fused kernel", "go for a fixed-shape buffer", "pad to a fixed shape" keep the prescription).
_ATTRIBUTIVE_BEFORE = compile_hoisted(
    # (most prepositions also end a phrasal remedy verb: "turn on the …", "get rid of the …", "swap in a …")
    r"(?:(?<!\bgo )(?<!\bopt )(?<!\bgoing )(?<!\bask )(?<!\baim )(?<!\bpush )(?<!\bsettle )"
    r"\b(?:than|like|inside|within|during|for)"
    r"|\b(?:that|which|who)\s+[\w-]+)\s+(?:the|a|an|this|its|their|our|each|every)\s+$"
)
# "swap the eager loop for a CUDA graph replay": after a verb of exchange, "for a …" names what to put in
_EXCHANGED_FOR = re.compile(
    r"\b(?:swap|trade|switch|exchange|change|replace|substitute|ditch|drop)\w*\b[^.;,]*\bfor\s+"
    r"(?:the|a|an|this|its|their|our|each|every)\s+$"
)
_NOUN_AFTER = re.compile(
    r"[\s-]+(?!(?:and|or|but|so|to|for|with|in|on|is|are|was|were|will|would|should|could|can|might|may|if|when|that"
    r"|which|the|a|an|of|as|at|by|from|then|it|this|instead|rather|alone|again|too|first|here|now|you|we|i|they"
    r"|he|she)\b)[a-z][\w-]*"
)
_IN_PLACE_WORDS = (
    "already",
    "keep",
    " is ",
    " are ",
    " was ",
    " were ",
    "dominat",
    "tops",
    "topped",
    "shows up",
    "showup",
)
_CHANGE_AFTER = compile_hoisted(
    r"\b(?:raise|bump|increase|double|lower|reduce|drop|cut|change|switch|turn|set|move|go|crank|halve)"
    r" (?:it|that|them|this|to|up|down|off|on)\b"
)
# A check's reading called fine ("MFU 52%, which is fine", "overhead ~2% is normal"): a result, not a rejection.
_READING_FINE_AFTER = re.compile(
    r"^[^.;]{0,25}?(?:\d|\bwhich\b)[^.;]{0,20}?\b(?:is|are|was|looks?|seems?)\s+"
    r"(?:fine|ok|okay|good|normal|healthy|reasonable|expected)\b"
    r"|^[^.;]{0,45}?\bto rule (?:that|it|this) out\b"  # "I'd ncu it to rule that out": the check is made
)
# A diagnosis named inside a fix ("remove the torch.cuda.synchronize() before the all-reduce") is not a claim.
_FIX_CONTEXT_BEFORE = compile_hoisted(
    r"\b(?:remove|removing|drop|dropping|avoid|avoiding|get rid of|eliminate|delete|take out|stop calling|no more"
    r"|rip out|ripping out|pull out|strip out|whatever forces"
    r"|fix|fixing|fixed|cut|cutting|shave|shaving|reduce|reducing|hide|hiding|amortize|amortise|lower|lowering)"
    r"\b[^.;]{0,30}$"
    r"|^-$"  # a removed line of a diff ("-torch.cuda.synchronize()")
)
# A diagnosis named as the object of a measurement ("count the cudaStreamSynchronize calls") is not a claim.
_MEASURE_CONTEXT_BEFORE = compile_hoisted(
    r"\b(?:count|counting|grep|look for|looking for|search for|check for|find|above each|measure|plot|correlate|compare"
    r"|how many|number of|(?:check|see|test|verify|confirm|tell)(?:ing)? (?:whether|if))\b[^.;]{0,20}$|\bhow\s+$"
    # "cuda_api_sum for launches, memory_stats for the allocator": a tool and what it would catch
    r"|\b(?:memorystats|memorysnapshot|ncu|nsys|mfu|hta|dcgm|nvidiasmi|syncdebugmode|withstack|cudaapisum"
    r"|cudagpukernsum|kernelsum|allocretries|torchdistributeddebug|busbw)"
    r"\s+(?:for|to (?:check|find|catch|rule out|spot))\s+(?:the |a |any )?$"
    # "per-rank times for stragglers", "clocks for throttling": a measurement and what it would catch
    r"|\b(?:times?|timings?|counts?|clocks?|traces?|stats|metrics|numbers|checks?) for (?:the |a |any )?$"
)
# After "if", what carries on with the branch already taken rather than opening another ("if so", "if confirmed",
# "if it does"): the branch readers in evidence.py and scorer.py share it
SAME_BRANCH = r"(?! (?:so|confirmed|verified|that'?s (?:it|confirmed|the case)|it does|it is|yes)\b)"
# A question framed by a negation: "isn't the all-reduce just running after backward?", "wasn't that the allocator?"
_NEGATIVE_QUESTION = re.compile(
    r"\W*(?:(?:so|but|and|hmm+|wait|ok|okay|um+)\W+)?(?:isn'?t|aren'?t|wasn'?t|weren'?t|doesn'?t|don'?t|didn'?t"
    r"|is(?:n't| not)|are not)\b(?! (?:it|that|this) (?:just )?(?:because|odd|weird|strange|obvious|clear)\b)"
)
# ("… runs serialized after backward instead of hiding under it" describes what does not happen)
_NEGATION_INSIDE = re.compile(r"\b(?:not|no|never|without|instead of|rather than)\b|n't\b")
# "with nothing overlapping" denies; "nothing to chase", "nothing left to do" are remedies of their own
_NOTHING_DENIES = re.compile(r"\bnothing\b(?! (?:to|left|more|else|much|but)\b)")
_NEGATED_PROBLEM_AFTER = re.compile(r"^\W*(?:problem|issue|bottleneck|the case|it)\b")
# "one of those two" hedges; "one of the ranks is slow" picks one member of the job and claims it is slow.
_HEDGE_PATTERN = re.compile(
    r"\b(?:(?:not sure|unsure|no idea)(?!,? (?:yet )?(?:about|on|for|what|how|which|where)\b[^.;?]{0,25}"
    r"\b(?:fix|check|confirm|prove|measure|verify|remedy|do about))"
    # "maybe 15%", "perhaps a third of the step": an estimate of a number, not a doubt
    r"|(?:maybe|possibly|perhaps)(?! ?[~≈]? ?\d| (?:a |one )?(?:third|half|quarter|fifth|tenth|twice|double)\b)"
    r"|(?:might|could) (?:also |just |well |easily )?be"
    r"|hard to (?:say|tell)"
    r"|can'?t tell|i guess|i'?m guessing|just guessing|50/50|50-50|coin ?flip|some kind of"
    r"|one of(?! (?:the |our |them\b)?(?:\d+ |two |four |eight |sixteen |thirty-two |sixty-four )?"
    r"(?:ranks?|gpus?|nodes?|workers?|cards?|boxes|hosts?|devices?|machines?|servers?)\b))\b"
    r"|\beither\b.{0,80}\bor\b"
    r"|\?\)?\s*$|🤔|🤷"  # "launch overhead in decode (CUDA graphs on?)" asks too
)
HEDGE = Gated(_HEDGE_PATTERN)  # searched only in a clause holding one of its words
# The marks of HEDGE that hedge a check or a fix too: "either A or B" between two fixes of one problem is a choice,
# not a doubt.
_REMEDY_HEDGE_PATTERN = re.compile(
    r"\b(?:not sure|unsure|no idea|maybe|might be|could be|possibly|perhaps|hard to (?:say|tell)|can'?t tell|"
    r"i guess|i'?m guessing|just guessing|50/50|50-50|coin ?flip|some kind of)\b|\?\s*$|🤔|🤷"
)
_REMEDY_HEDGE = Gated(_REMEDY_HEDGE_PATTERN)  # searched only in a clause holding one of its words
# "kind of" / "sort of" hedge an adverb's way ("it's kind of slow"), not as a noun after a determiner or an adjective:
# "the good kind of busy", "this sort of trace", "the wrong kind of busy" describe, they do not doubt.
_KIND_OF_NOUN = (
    "the",
    "this",
    "that",
    "what",
    "which",
    "same",
    "good",
    "right",
    "wrong",
    "bad",
    "usual",
    "other",
    "different",
    "healthy",
    "best",
    "worst",
    "any",
    "every",
    "no",
    "one",
    "typical",
    "classic",
    "normal",
    "nice",
    "expected",
    "fine",
    "healthiest",
)
_KIND_OF = "".join(rf"(?<!\b{w} )" for w in _KIND_OF_NOUN) + "(?:sort|kind) of"
# Further marks of a tentative diagnosis (they do not make a check or a fix tentative).
_TENTATIVE = re.compile(
    r"\b(?:i'?d hazard|hazard a guess|of some sort|" + _KIND_OF + r"|reminds me of|remind me of|"
    r"might be (?:the same|similar)|could be (?:the same|that) again|i think|i suspect|suspect|i'?d guess|"
    r"probably(?<!i'd probably)(?<!i would probably)(?<!we'd probably)|"  # "I'd probably bump m": the fix is soft
    r"prob|my guess|afaict|i believe|idk|(?:want|like) to confirm|"
    r"to be sure|before (?:saying|committing)|i reckon|reckon|i feel like|"
    # a hunch or a gut call is a guess however it is put: "hunch: X", "hunch says X", "gut feel says X"
    r"hunch(?:es)?|gut (?:says|feel\w*|tells me|instinct|call|check|reaction)|my gut|instinct says|"
    # a guess owned as the only one: "that's my only guess", "only idea i have", "the only thing i can think of"
    r"my only " + _GUESS_NOUN + r"(?! left\b)|" + _OWNED_GUESS + r"|only thing i can think of|"
    r"feels like|i wonder (?:if|whether)|not 100 ?%|not entirely sure|not certain|could be wrong|"
    r"haven'?t (?:verified|checked|confirmed)|not verified|hold it loosely|"
    r"i'?m not certain|might|may be"
    # a diagnosis held as a working hypothesis, in a status update or a ticket: "we think", "leading theory is",
    # "Suspicion: …", "(not confirmed)", "we likely have …"
    r"|we\s+think|(?:leading|working|current|main|initial) (?:theory|hypothesis|suspicion)|suspicion|hypothesis"
    r"|not (?:yet )?(?:confirmed|proven)|unconfirmed|(?:we|i|it) (?:most )?likely|(?:most )?likely (?:a|an|the|it'?s)"
    # "X may no longer be overlapping", "I'd like someone to double-check before we act on it"
    r"|may (?:no longer|not|have|well)"
    # "working assumption", "best guess", "I'd lean towards", "smells like", "to be confirmed", "(TBC)"
    r"|working assumption|tentative(?:ly)?|best guess|lean(?:ing)? (?:towards?|to)|smells like"
    # a possibility given odds: "some chance it's a straggler", "a fair chance the loader can't keep up"
    r"|(?:some|a|small|slight|outside|good|fair|decent|real) chance"
    r"|pending confirmation|to be confirmed|tbc"
    r"|(?:like|want|need) (?:someone |somebody |a second pair of eyes )?to double[\s-]?check"
    r")\b"
)
# A check or fix offered without conviction ("cuda graphs might help", "could try more workers"): ½ for that part,
# but it does not make a diagnosis in the same clause tentative.
_SOFT_REMEDY_PATTERN = re.compile(
    r"\b(?:might|could|may) (?:help|work|fix it|be worth|do (?:it|the trick)|solve it|sort it)"
    r"|\b(?:could|might|maybe|perhaps) try\b|\bworth a shot\b|\btempted to\b|\bi reckon\W*$"
    r"|\bshould (?:help|work|be worth)(?! a lot| a ton| massively| hugely)"  # "should help a lot", "should fix it" sure
    r"|\bworth (?:a )?try|\bworth trying\b|\b(?:probably|maybe|might be) worth\b"
    r"|\bnot sure (?:it|that|this) (?:helps|works|will)|\bi'?d try\b.*\bsee\b"
    r"|\bsee if (?:it|that) helps\b|\bi guess\b|\bi think\W*$|\b(?:might|could) consider\b"
    r"|\b(?:maybe|perhaps)\b(?! ?[~≈]? ?\d)"
    # "could check the request log", "I'd guess the idle is roughly (p-1)/(m+p-1)", "i think if you correlate …"
    r"|\b(?:could|might) (?:check|look|run|measure|plot|compare|count|scatter|grep|test|verify)\b|\bi'?d guess\b"
    r"|^\W*i think\b"  # "maybe 55-60%" estimates a number
    r"|\bmay (?:mitigate|help|be (?:informative|useful|worth|helpful))\b|\bwith some reservation|\bhesitat\w*"
    r"|\bprobably\s+(?:nothing|not|none|nothingtodo)\b"  # "probably nothing on the timeline" (folded)
    r"|\b(?:i'?d|i would|we'?d|we could|you could|you might) (?:probably|likely|maybe|perhaps)\b"
    r"|\b(?:probably|prob|likely)\s+(?:just\s+)?(?:leave|stop|ship|add|use|try|bump|raise|increase|set|switch|move|enable"
    r"|turn|drop|remove|fix|help|be enough|more|fewer|bigger|smaller|larger"
    r"|drain|swap|replace|reboot|reset|rebalance|delete|cut|split|chunk|fuse|pad|cap|lower|reduce|replaceit|removeit"
    r"|leaveit)\b"
    r"|\bprobably\W*$"
    # a fix tried in hope: "try chunked prefill and pray", "… fingers crossed 🤞"
    r"|\band (?:pray|hope)\b|\bfingers crossed\b|🤞|🙏"
)
_SOFT_REMEDY = Gated(_SOFT_REMEDY_PATTERN)  # searched only in a clause holding one of its words
# Offering two or more possibilities in one breath ("either X or Y", "could be X, could be Y", "can't tell").
_ALTERNATIVE = re.compile(
    r"\beither\b(?=[^.;]{0,80}\bor\b)|\beither (?:one|way|of (?:them|those|these|the two))\b"  # not "isn't X either"
    r"|\b(?:could|might|may) (?:also )?be\b[^.;]{0,80}\bor\b|\bweigh\w*\b[^.;]{0,80}\bagainst\b"
    r"|\bor\b[^.;]{0,80}\b(?:could|might|may) (?:also )?be\b"
    r"|\b(?:could|might|may) (?:also |just )?be\b.*\b(?:could|might|may) (?:also |just )?be\b"  # could be X, could be Y
    r"|\b(?:can'?t|cannot|hard to|too early to) (?:tell|say|decide|distinguish)\b"
    r"|\bone of (?:the|those|these) (?:two|three|few|several|options|candidates|possibilities)\b"
    r"|\b(?:not sure|unsure|(?:don'?t|do not|dunno) know) (?:if|whether|which)\b|\bdunno (?:if|whether|which)\b"
    r"|\bdepends (?:on )?which\b|\bdepending on\b[^.;]{0,80}\bor\b"
    r"|\bor\b[^.;]{0,60}\?\s*$|\bwhich is it\b"
    r"|\bsometimes (?:it'?s|it is|that'?s)\b[^.;]{0,80}\bsometimes\b"  # "sometimes it's X, sometimes Y"
    # a cause offered as what happens in general, one of a family: "in some jobs it's X", "occasionally the host …",
    # "the second suspect is …", "the same picture fits X, Y and Z"
    r"|\b(?:in (?:some|other|many|a few) (?:jobs|cases|runs|setups|traces|workloads)"
    r"|sometimes (?:it'?s|it is|the|a|you)|occasionally|other times)\b"
    r"|\bthe (?:first|second|third|fourth|fifth|next|last|other) (?:family|suspect|candidate|possibility|option|story"
    r"|hypothesis|culprit|kind|class|usual suspect|reading|explanation|theory|interpretation)\b"
    r"|^\W*(?:one|a first) (?:reading|explanation|theory|interpretation|possibility|option|hypothesis)"
    r" (?:is|would be)\b"
    r"|\b(?:and|then) the (?:second|third|fourth|fifth|last) (?:is|one)\b"
    r"|\banother (?:possibility|candidate|suspect|option|explanation|culprit)\b"
    r"|\b(?:picture|shape|pattern|symptom|trace|this) (?:also |equally )?(?:fits|matches)\b[^.;]{0,80}\b(?:and|or)\b"
    r"|\bcan (?:also )?be\b[^.;]{0,80}\bor\b|^\W*or (?:maybe|perhaps|possibly|else|it could|could|might)\b"
    # "a busy timeline can hide X, Y or Z": causes a symptom may have in general, offered as a family
    r"|\b(?:can|could|might|may|often|usually) (?:also )?(?:hide|mask|mean|come from|be caused by|be down to)\b"
    r"[^.;]{0,100}\bor\b"
    # X or Y or Z; "256 or more", "a week or so" bound a quantity, they offer no alternative
    r"|\bor\b(?! (?:more|so|less|fewer|higher|lower|above|below|greater|better)\b)[^.;]*\bor\b"
    r"(?! (?:more|so|less|fewer|higher|lower|above|below|greater|better)\b)"
)
# "X, Y or Z": a pattern of its own (it starts at any letter: inside the alternation above it made it 5× slower),
# tried only on a clause with a comma and an "or".
# At most 24 items from any start: a longer list is still found from a later start, and a long comma run with no "or"
# costs linear time, not quadratic.
_LISTED_OPTIONS = re.compile(r"\w(?:,\s*[\w./()-]+(?:\s+[\w./()-]+){0,2}){1,24},?\s+or\s+\w")
# Words _ALTERNATIVE cannot match without (a quick test first: most clauses hold none of them).
_ALTERNATIVE_HINT = re.compile(
    r"\b(?:either|could|might|may|or|weigh\w*|can'?t|cannot|hard|too early|one|not sure|unsure|depends|which|know"
    r"|sometimes|some|other|occasionally|depending|first|second|third|fourth|fifth|next|last|another|fits|matches|can)\b"
)
_CONDITION_WORDS = ("if", "when", "unless", "whether", "assuming", "in case")
# A condition: "if it's X, do A". With several diagnoses in play it offers X as one branch; with one, it is how the
# reply would confirm its only diagnosis ("if it jumps, the loader can't keep up"). "If you divide the bytes by the
# time you get 3 TB/s" describes how to run a check, not a branch ("if you see one all-reduce, …" still is one).
_CONDITION = re.compile(
    r"^\W*(?:if|when|unless|whether|assuming|in case)\b(?! (?:you|we) (?!see\b|find\b|get\b))"
    # ("I don't know if it's the network or a slow rank" asks; it sets no condition)
    r"|(?<!know )(?<!sure )(?<!tell )(?<!wonder )\b(?:if|when) (?:it'?s|it is|this is|that'?s|the)\b"
)
# A condition that opens a sentence makes what follows in it a branch too: "If the API bar is cudaMalloc, it's the
# allocator" ("if I had to pick, it's X" and "if you look closely, …" commit).
_CONDITION_LEAD = re.compile(
    r"^\W*(?:unless (?!i\b|i'?m\b|i am\b)"
    r"|(?:if|assuming)\b(?! (?:i|you|we) (?:had|have|must|were|look|zoom|ask|squint)\b"
    r"|(?: \w+)? (?:forced|pushed|anything|pressed)\b))"
)


def sarcasm_tag(clause: Clause) -> bool:
    return "/s" in clause.text and bool(_SARCASM.search(clause.text))


def bare_hedge(clause: Clause) -> bool:
    """The clause is nothing but a hedge on what follows it in the sentence ("I suspect —", "I might be wrong, but")."""
    return not clause.stop and bool(_HEDGE_LEAD.search(clause.text))


def sets_condition(clause: Clause) -> bool:
    """The clause opens with a condition ("if DRAM is near peak, …"), whether or not its consequent is in it."""
    return any(w in clause.text for w in ("if", "unless", "assuming")) and bool(_CONDITION_LEAD.search(clause.text))


# The other branch of a condition: "if DRAM is near peak it's memory-bound; otherwise it's healthy"
OTHER_BRANCH = re.compile(r"^\W*(?:otherwise|else|if not|failing that)\b")
OTHER_BRANCH_REACH = 3  # clauses back to the condition it answers


def opens_condition(clause: Clause) -> bool:
    """The clause opens a sentence's condition: what follows in that sentence is its consequent."""
    return (
        not clause.stop
        and any(w in clause.text for w in ("if", "unless", "assuming"))
        and bool(_CONDITION_LEAD.search(clause.text))
    )


# "if so", "if that's it", "if I'm right": what follows waits on the guess itself, not on a check's result ("if
# confirmed", "if it's climbing" wait on a check the reply proposes); so does a branch picked by name ("for the bucket
# case set bucket_cap_mb", "in that case", "otherwise count the kernels")
_ON_GUESS = re.compile(
    r"^\W*(?:(?:and|then|so)\W+)?(?:if (?:so|that'?s (?:it|the case|right|true)|i'?m right|true)\b"
    r"|(?:in|for) (?:that|this|the (?!worst\b|best\b|general\b|common\b|usual\b)[\w-]+(?: [\w-]+)?) case\b"
    r"|otherwise\b|else\b)"
)
_GUESS_WORDS = ("if", "case", "otherwise", "else")


def on_guess(clause: Clause) -> bool:
    """The clause opens with "if so" / "if that's it" / "in that case": what it proposes is as sure as the guess
    before it."""
    return any(w in clause.text for w in _GUESS_WORDS) and bool(_ON_GUESS.match(clause.text))


# A clause that is nothing but a hedge ("I suspect", "though I'm not sure", "I might be wrong"): it hedges the next.
_HEDGE_LEAD = compile_hoisted(
    r"^\W*(?:(?:though|although|but|and|so|well|um|uh)\W+)*(?:i )?(?:suspect|think|guess|believe|reckon"
    r"|(?:i'?m |i am )?(?:not (?:sure|certain|100 ?%|entirely sure|positive)|unsure)"
    r"|(?:i )?(?:might|could|may) be wrong|my guess is|(?:i )?can'?t be (?:sure|certain)|hard to say"
    r"|don'?t quote me|probably|maybe|perhaps|possibly"
    r"|(?:my |our |the )?(?:leading |working |current |initial |main )?(?:theory|hypothesis|suspicion|assumption)"
    r"|(?:my |our |the )?best guess|tentatively|pending confirmation"
    r"|(?:my |a )?hunch(?: says| is)?|(?:my )?gut(?: feel(?:ing)?)?(?: says| tells me| is)?)"
    r"(?: (?:for now|so far|right now|at the moment|at this point))?\W*$"
)
# A list item after the match carries its own condition ("num_workers up, pin_memory, and DALI if it's image decode"):
# the items before it are not conditional.
_CONFIRMED = re.compile(
    r"\W*(?:if|once|when) (?:(?:it'?s|that'?s|this is|it is|that is|it gets|the diagnosis is) )?"
    r"(?:confirmed|verified|so|borne out|the case)\b(?=\s*(?:[,:;—–-]|then\b))"
    r"|\W*(?:if|once) (?:it|that|this) (?:checks out|holds|holds up|pans out)\b(?=\s*(?:[,:;—–-]|then\b))"
)
_WH_OPENS = re.compile(r"\W*(?:how|what|which|where|when|why)\b")  # not "do you think we should run ncu?"
_QUIZ = re.compile(
    r"\b(?:do|did|would|will) you (?:think|reckon|guess|say|expect|suppose|imagine)\b"
    r"|\bcan you (?:guess|work out|figure out|spot)\b|\bwhat would you (?:expect|say|guess|see)\b"
)
_LATER_ITEM = re.compile(r",|\band\b|\bor\b|\bthen\b")
_MID_CONDITION = re.compile(r"\b(?:if|when) (?:it'?s|it is|this is|that'?s|the)\b")
# A clause that introduces a list of checks ("Before touching anything I'd check:", "To confirm:").
_LEADS_INTO_CHECKS = re.compile(
    r"\b(?:check|measure|verify|confirm|look at|inspect|test|checks|measurements?|battery|checklist)\W*$"
)
# A clause that heads a list of what the reply has ruled out ("What I ruled out:", "Things I excluded:", "Checked and
# dismissed:", "Not the cause:"): the diagnoses and remedies it lists are rejected, not offered. A plan to rule out
# ("things to rule out:") or a negated heading ("not yet ruled out:") rejects nothing.
LEADS_INTO_RULED_OUT = re.compile(
    r"\b(?:ruled out|excluded|dismissed|eliminated|discarded|cleared|crossed off|rejected"
    r"|not (?:it|the (?:cause|culprit|problem|issue|bottleneck))|what it(?:'s| is)(?: not|n'?t))\b[^.;:?]{0,24}$"
)
RULED_OUT_UNDONE = re.compile(  # what, before the heading's word, leaves the ruling out undone or only planned
    r"\b(?:not|no|never|yet|to|need\w*|should|must|will|would|i'?d|we'?d|can'?t|cannot|haven'?t|hasn'?t|if|still)\b"
    r"|n't\b"
)
# A clause that introduces candidates ("the usual suspects:", "I weighed three things for the gap:"): what follows
# is offered as possibilities, for the reply to rule in or out.
_LEADS_INTO_CANDIDATES = re.compile(
    r"\b(?:suspects|candidates|possibilities|hypotheses|explanations|culprits|the following|could be anything"
    r"|shortlist|guesses|rule in|rule out|(?:things|what) (?:i'?d|to|we should) (?:consider|weigh|suspect))\W*$"
    r"|\b(?:two|three|four|five|several|a few|\d) (?:things|options|causes|stories|readings|possibilities|hypotheses"
    r"|ideas|theories|contenders"
    r"|candidates|suspects|explanations)\b[^.;]*$"
    r"|\b(?:weighed|considered|suspected|see|saw|can think of) (?:two|three|four|several|a few) (?:things|options)"
    r"\b[^.;]*$"
)
# The next clause denies this one: "sometimes the allocator causes this, but not here".
DENIED_BY_NEXT = re.compile(
    r"^\W*(?:no(?=\W*$)|nope(?=\W*$)"  # "… NCCL_ALGO=Tree. No."
    r"|not here|not this time|not in this (?:case|trace|run|one)|not the case here|not what'?s happening"
    r"|that'?s not (?:it|what'?s happening|the case|the story|the problem|the issue|the bottleneck)(?: here)?"
    r"|doesn'?t apply here|no such luck|resist (?:that|it|the urge|the temptation)"
    # "The GPU metrics rows — I wouldn't read much into them": the check is dismissed
    r"|(?:i )?(?:wouldn'?t|don'?t|would not|do not) (?:read (?:much|anything|too much) into|trust)"
    r" (?:it|them|that|those)"
    r"|ignore (?:it|them|that|those)"
    r"|(?:and |but )?(?:i )?(?:found|saw|see|there(?:'s| is| are)) (?:none|nothing|no sign) of (?:them|those|these|it)"
    # "… picket-fence launches, exposed comm, API-bar-then-gap, | and I can't find any of them"
    r"|(?:and |but )?(?:i )?(?:can'?t|cannot|couldn'?t|could not|didn'?t|did not|don'?t|do not) (?:find|see|spot)"
    r" (?:any|one|either) of (?:them|those|these|it)"
    r"|none of (?:them|those|these) (?:is|are|apply|applies|show|shows|fit|fits|hold)"
    r"|(?:so |which means )?(?:the first two|both|those|these|all three|all of them) (?:are|is)"
    r" (?:out|ruled out|excluded))\b"
)
# A bare dismissal after a mention: "the .item() is there, it runs once every 100 steps; negligible" names the thing to
# wave it away (what it reaches back to: matcher.py, to the start of the sentence before it).
DISMISSAL = re.compile(
    r"(?:^|,)\W*(?:(?:so|and|but|which is|that'?s|it'?s|thus|hence)\s+)?"
    r"(?:(?:totally|entirely|basically|practically)\s+)?"
    r"(?:negligible|harmless|insignificant|a non-?issue|irrelevant|not worth (?:fixing|chasing)"
    r"|not the (?:problem|issue))"
    r"(?:\s+(?:here|really|then|in practice|at that rate|overall))?(?:\W*$|\s*,)"
)
DISMISSAL_WORDS = ("negligib", "harmless", "insignifican", "issue", "irrelevant", "worth", "problem")
# A checklist's verdict on the label before it: "Dataloader: no, the GPU is busy from the first ms", "Slow rank:
# nope", "Launch overhead: ruled out — kernels are 2 ms" (not "Fix: no more .item() in the loop", "Sync: no doubt").
_VERDICT_NO = re.compile(
    r"^\W*(?:no|nope|nah|negative|not it|not this|not that|not here|not the (?:issue|problem|cause|culprit|bottleneck)"
    r"|ruled out|rule[ds]? it out|excluded|n/a)(?=\W*$|\s*[,.;:!—–-])"
    r"|^\W*[❌✗✘]"
)
# The next clause, all of it, hedges this one: "… isn't overlapping, though I'm not certain" (not "not sure about
# the fix", which hedges what follows).
HEDGED_BY_NEXT = re.compile(
    r"^\W*(?:i'?m |i am )?(?:not (?:certain|sure|100 ?%(?: (?:sure|certain|confident))?|entirely sure|confident"
    r"|positive|convinced|fully convinced)|could be wrong|might be wrong"
    r"|don'?t quote me|don'?t hold me to (?:it|that)"
    # "…, though I'd not swear to it", "but I wouldn't bet on it", "don't take my word for it"
    r"|(?:(?:i )?(?:wouldn'?t|would not|won'?t|couldn'?t|can'?t)|i'?d not)"
    r" (?:swear (?:to|by)|bet (?:on|my \w+ on)) (?:it|that|this)"
    r"|don'?t take my word for (?:it|that)"
    r"|unverified|just a guess|only a guess|a guess|to be confirmed|tbc|pending confirmation)"
    r"(?: (?:yet|tho|though|of (?:it|that)))?\W*$"
    r"|^\W*i'?d (?:want|need|like) (?:to see )?[^.;]{0,40}\bfirst\W*$"  # "…, but I'd want the request log first"
    # "…, though I'd like someone to double-check", "but I want a second pair of eyes to double-check it"
    r"|^\W*(?:but |though |although )?(?:i'?d |i would |we'?d |i )?(?:want|need|like) (?:someone |somebody "
    r"|a second pair of eyes )?to double[\s-]?check\b[^.;]{0,40}$"
    # "X. That's my only theory for the comb of kernels", "… — only guess I have": the guess is owned as one
    r"|^\W*(?:(?:that'?s|it'?s|this is|that is|it is) (?:my|the) only "
    + _GUESS_NOUN
    + r"|(?:my )?"
    + _OWNED_GUESS
    + ")"
    r"\b[^.;]{0,50}$"
    r"|^\W*(?:but )?(?:i )?(?:haven'?t|have not|didn'?t|did not) (?:actually )?"  # "…, but I haven't done it"
    r"(?:done|run|tried|checked|verified|measured|counted) (?:it|that|this)(?: yet)?\W*$"
)
# A question back: the reply asks for something ("what's num_workers set to?", "is this the A100 trace?") and claims,
# checks or fixes nothing in it. "Could it be X?" offers X (a hedge); "have you tried X?" suggests X.
QUESTION_BACK = re.compile(
    r"^\W*(?:(?:wait|ok|okay|so|hmm+|also|and|but|quick q|q)\W+)?(?!have you tried|did you try|what about|how about)"
    r"(?:what|what'?s|which|how|where|who|do you|does|did|have you|has|can you|can we|could you|would you"
    r"|any chance|anyone|is this|is that|are these|are those|are you|is there|are there|was this|were you)\b[^?]*\?\s*$"
    # "is expandable_segments even on by default?": asking about a setting
    # ("is the top kernel bound on DRAM?" asks no setting: "on"/"off" name one only at the end of the question)
    r"|^\W*(?:is|are|was|were) [^?]{0,60}(?:\b(?:on|off)(?: by default| already| yet| here| at all| now)?\s*"
    r"|\b(?:enabled|disabled|set|default|installed|available|supported)\b[^?]*)\?\s*$"
)
# A yes/no question about the trace itself that calls the problem by name puts that name forward as a guess, when the
# question says it guesses ("is this just a healthy run?", "is it maybe bound on DRAM?") or the reply owns the guess
# right after it ("is there a single slow rank here? only thing I can think of", "…? probably"). A question the reply
# goes on to answer or to teach from ("so is this healthy? don't stop there …") still only asks.
_PUTS_FORWARD = re.compile(
    r"^\W*(?:(?:wait|ok|okay|so|hmm+|also|and|but)\W+)?(?:(?:is|are|was|were) (?:this|that|these|those|there|it)\b"
    r"|any chance\b|(?:does|do) (?:this|that|it|these|those) (?:look|smell|sound|seem)\b)"
)
_GUESSING_QUESTION = re.compile(r"\b(?:just|maybe|perhaps|possibly|simply|really)\b")
_GUESS_OWNED_AFTER = re.compile(
    r"^\W*(?:(?:that'?s|it'?s|this is|that is|it is) (?:my|the) only\b"
    r"|(?:my )?only (?:" + _GUESS_NOUNS + r"|thing)\b"
    r"|(?:probably|prob|likely|i think|i suspect|i reckon|i'?d guess|my guess|my hunch)\b)"
)
_YES = re.compile(r"\W*(?:yes|yep|yeah|yup|correct|exactly|indeed)\b")
_PROPOSES_STEP = re.compile(r"^\W*(?:should|shall) (?:we|i)\b")


def _asking(text: str) -> bool:
    """A question that asks for something or proposes a step, not one more candidate."""
    return bool(QUESTION_BACK.search(text) or _PROPOSES_STEP.search(text))


# A question that spells out the one before it ("…? like the DDP hooks stopped firing?", "…? i.e. the reducer?")
_ELABORATES = re.compile(r"\W*(?:like|i\.?e\.?|e\.?g\.?|as in|meaning|because|since|'?cause)\b")
# A question that proposes a step ("…? maybe swap that card?", "…? try more workers?"): not one more candidate
_REMEDY_QUESTION = re.compile(
    r"\W*(?:(?:so|then|and|maybe|perhaps|just)\W+){0,2}(?:try|swap|drain|cordon|bump|raise|increase|lower|reduce|set"
    r"|add|use|turn|enable|disable|remove|drop|replace|move|switch|rebalance|chunk|capture|log|run|check|time|count"
    r"|compare|plot|look|replaceit|removeit)\b"
)
# A question that suggests a fix or a check: "have you tried torch.compile?", "what about more workers?"
_SUGGESTS = re.compile(
    r"\W*(?:(?:and|so|also|but)\W+)?(?:have you tried|did you try|what about|how about|why not|could you try"
    r"|what happens if (?:you|we)|what if (?:you|we))\b"  # "what happens if you bump the micro-batch?" suggests it
)
# A question that asks nothing: "why is rank 4 slow?" presumes it; "see those cudaMalloc bars?" points at them.
RHETORICAL = re.compile(
    r"^\W*(?:so |and |but )?(?:why\b|(?:see|notice|spot|you see) (?:those|these|that|the|how)\b)[^?]*\?\s*$"
    # a lead-in that asks nothing: "Honestly? Nothing's wrong.", "Verdict? Straggler.", "The fix? Drain it."
    r"|^\W*(?:honestly|seriously|frankly|verdict|diagnosis|answer|short answer|my answer|my take|root cause|cause"
    r"|culprit|the (?:fix|cause|culprit|answer|verdict)|fix|remedy|check|proof|confirmation)\W*\?\s*$"
    # a sarcastic lead-in guesses nothing, it mocks: "Let me guess, num_workers=2?", "You really want me to say it?",
    # "Did you really ship without chunked prefill?", "… and you're asking why ITL is bad?"
    r"|^\W*(?:oh,? )?(?:let me guess|(?:you|do you|did you|are you|were you) (?:really|seriously|honestly)\b"
    r"|(?:you|do you) (?:really )?want me to (?:say|spell)\b)[^?]*\?\s*$"
    r"|\b(?:and )?you'?re (?:really |seriously )?asking (?:why|what|how)\b[^?]*\?\s*$"
)
# A statement closed by a tag that asks nothing ("… use the interleaved schedule, beleza?", "… in a CUDA graph,
# tamam?", "…, right?"): the statement stands; the tag seeks agreement, it does not doubt.
_TAG_QUESTION = re.compile(
    r"[,\s](?:ok|okay|right|yeah|yes|eh|no|innit|yani|tamam|beleza|né|ne|na|ja|oder|hein|vale|sí|si|ja\?|non)\W*\?$"
)
_RHETORICAL_WORDS = (
    "why",
    "see",
    "notice",
    "spot",
    "honestly",
    "seriously",
    "frankly",
    "verdict",
    "diagnosis",
    "answer",
    "take",
    "cause",
    "culprit",
    "fix",
    "remedy",
    "check",
    "proof",
    "confirmation",
)
# A story from another job ("we had this in 2022", "years back a run …") claims nothing about this trace on its own;
# the reply ties it to this one with "same picture here", "this trace has the same …".
ANECDOTE = compile_hoisted(
    r"\b(?:we had|i had|had this|we once|i once|once had|once saw|years? (?:back|ago)|a while (?:back|ago)"
    r"|back in (?:19|20)\d\d|in (?:19|20)\d\d|last (?:year|time|job)|at my (?:last|previous|old) (?:job|company|place)"
    r"|on a previous|on an old|used to have"
    # other jobs' incidents and a team's history: "we've had …", "two incidents …", "lessons from the bring-up"
    r"|(?:we|i)(?:'ve| have) (?:had|hit|seen) (?:this|that|it|these|those|long|slow|big|many|several|a few|two|three)"
    r"|(?:two|three|several|a few|past|previous|earlier|other) (?:incidents|outages|jobs|runs)"
    r"|postmortems|post-mortems|retrospectives|lessons (?:from|learned|learnt)"
    r"|in (?:my|our) (?:experience|history)|over (?:those|the past|the last) (?:weeks|months|years))\b"
)
SAME_HERE = compile_hoisted(
    r"(?<!might be the )(?<!could be the )(?<!maybe the )(?<!may be the )(?<!might be )(?<!could be )"
    r"\b(?:same (?:picture|shape|pattern|thing|story|comb|signature|symptoms?|trace) (?:here|again|as)"
    r"|this (?:trace|one|job|run) (?:is|has|shows|looks) (?:the same|exactly|just like)"
    r"|(?:exact|exactly the) same (?:shape|picture|pattern|thing)|same here|here too(?!\?)"
    r"|just like (?:that|this) one)\b"
)
# A later clause holds the verdict back: "… is bandwidth-bound — I'd want the roofline before betting on it".
VERDICT_HELD = compile_hoisted(
    r"\bbefore (?:betting|committing|calling it|concluding|i'?d commit|i'?d bet|i bet|i'?d call it)\b"
    r"(?! to (?:a |the |any )?(?:change|fix|remedy|solution))"
    # "… not sure it's the cause though", "I wouldn't commit without ncu"
    r"|\b(?:wouldn'?t|won'?t|can'?t|don'?t want to|would not|will not|cannot|do not want to) (?:commit|call it|be sure)"
    r"\b[^.;]{0,30}\b(?:without|until|before)\b"
    r"|\bnot (?:sure|certain|convinced) (?:it'?s|that'?s|this is|it is) (?:the (?:cause|culprit|root cause|problem"
    r"|whole story)|it|right)\b"
)
# Words VERDICT_HELD cannot match without: a reply with none skips it.
HELD_WORDS = ("before", "without", "until", "not sure", "not certain", "not convinced")
# A sarcasm tag: the clause it closes says the opposite of what it claims.
_SARCASM = Gated(re.compile(r"(?:^|\s)/s\b"))
# The reply takes back what it said so far: "memory bound? … no wait, …", "ok actually I pulled the other ranks",
# "scratch that", "edit:", "Sync stall? No: the API is cudaMalloc". What it names after the mark is its answer.
SELF_CORRECTION = re.compile(
    r"(?:^|[.!?;\n]\s*|,\s*|\s[-–—]+\s*)(?:(?:hmm+|um+|uh+|oh|oops|so|and|but|actually|nah|no|ok|okay)\W+)?"
    # "Wait — only 3 cudaMalloc …", "alloc stall — wait, zoomed in …"; not the verb ("…, and wait, then the all-reduce")
    r"(?:wait(?=\s*(?:[-–—]+|,)\s)(?!\s*,\s*(?:then|for|until|on|while)\b)"
    r"|(?:no,? wait|wait,? no|wait,? actually|scratch that|strike that|forget (?:that|what i said)"
    r"|ignore (?:that|the above|what i said)|on second thoughts?|actually,? no|nvm|never ?mind"
    r"|i take (?:that|it) back|(?:ok|okay),? actually)\b|(?:edit|update|correction)\s*\d?\s*:)"
    r"|\?\s*(?:no|nope|nah)\b(?!\s+(?:gaps?|idle|sign|idea|clue|one|rank|way)\b)"
)

# The reply says outright that it does not commit.
_UNDECIDED_PATTERN = re.compile(
    r"\b(?:(?:not|won'?t|can'?t|don'?t want to) (?:commit|decide|choose|pick)|which is it|"
    # "I wouldn't commit either way", "couldn't decide between them" ("I wouldn't commit without an ncu pass" holds
    # back one candidate: a hedge, not a choice left open)
    r"(?:wouldn'?t|would not|couldn'?t|could not|(?:not )?(?:ready|willing|prepared) to) (?:yet )?(?:commit|decide)"
    r" (?:either way|between|to either|on either|one way or the other)|"
    r"one of those two|one of the two|could go either way|no way to tell|50/50|coin ?flip|"
    r"(?:and|then) decide (?:from there|later|after(?:wards)?|between|which)"
    # "probably one of those again", "one of these five is your answer": the answer is left in a list
    r"|(?<!every )(?<!each )(?<!any )one of (?:those|these|them|the above)(?: (?:two|three|four|five|six))?"
    r"(?=\s*(?:again|for sure|is (?:your|the)\b|will\b|[.,;!?]|$))"
    r"|can'?t say (?:anything|much)(?: useful)? until|asking before i answer"
    r"|(?:can'?t|cannot|couldn'?t) (?:really |quite )?(?:tell|say|decide) which (?:one )?(?:it is|it'?s|this is))\b"
)
UNDECIDED = Gated(_UNDECIDED_PATTERN)  # searched only in a clause holding one of its words

# Words one of the polarity patterns above needs (a superset): a clause without any skips those patterns.
_NEGATION_KEYWORD = re.compile(
    r"\b(?:not|no|nothing|zero|never|nor|without|rather|instead|rul\w*|unlikely|doubt|neither|against|isnt|exclud\w*|reject\w*"
    r"|dismiss\w*|first|about|going|almost|would|been|thinking|made|had|got|tempt\w*|wrong|alternative|considered|weighed|thought|wondered|worried|said|says|suggested"
    r"|looked|checked|asked|tell|recommend\w*|twin|look-?alike|lookalike|doppelganger|decoy|confusion"
    r"|claimed|blamed|cross|crossed|crossing|strike|struck|striking|set)\b|n't\b"
)
_EXONERATION_KEYWORD = re.compile(
    r"\b(?:tell|help|show|settle|distinguish|alone|first|surface|made|had|got|fine|ok|okay|good|normal|innocent|irrelevant|healthy|herring|not|ruled|isnt|arent|wasnt|explain|account"
    r"|negligible|harmless|insignificant|nonissue|non|noise"
    r"|fit|wrong|trap|rearranging|pointless|useless|futile|waste|wasted|cargo|anything|needle|out|off|mind"
    r"|occurred)\b|n't\b"
)
_CONTEXT_KEYWORD = re.compile(
    r"^-\S|\b(?:remov\w*|drop\w*|avoid\w*|get rid|eliminate|delete|take out|stop calling|no more|fix\w*|cut\w*|rip\w*"
    r"|pull out|strip out|whatever"
    r"|shav\w*|reduc\w*|hid\w*|amorti[sz]e|lower\w*|count\w*|grep|look\w* for|search for|check for|find"
    r"|above each|measure|plot|correlate|compare|how many|number of|whether|if|memorystats|memorysnapshot|ncu|nsys"
    r"|mfu|hta|dcgm|nvidiasmi|syncdebugmode|withstack|cudaapisum|cudagpukernsum|kernelsum|allocretries"
    r"|torchdistributeddebug|busbw|times?|timings?|clocks?|traces?|stats|metrics|numbers|checks?)\b"
)

# The keyword tests above, each skipped on a clause that holds none of its words (wordgate.py: one set test).
_NEGATION_WORDS, _EXONERATION_WORDS, _CONTEXT_WORDS, _ALTERNATIVE_WORDS, _TENTATIVE_WORDS = map(
    WordGate, (_NEGATION_KEYWORD, _EXONERATION_KEYWORD, _CONTEXT_KEYWORD, _ALTERNATIVE_HINT, _TENTATIVE)
)

# _ALTERNATIVE's 25 alternatives, each tried only on a clause holding a word it needs (one "or" no longer sets sre
# trying all of them at every position)
_ALTERNATIVES = AnyAlternative(_ALTERNATIVE)

Flags = tuple[bool, bool, bool, bool, bool]  # (offers alternatives, hedged, tentative, conditional, soft remedy)
# hedged: a diagnosis here is hedged (alternatives included); soft: a check or fix here is offered without conviction


_DOUBT_BEFORE = re.compile(r"\b(?:maybe|perhaps|possibly|probably|i think|i guess|i suspect|not sure)\b")
# an emoji after a check or fix closes its statement; a doubting one ("cuda_api_sum would tell 🤷") doubts it
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
_CLOSING_EMOJI = ("🤔", "🤷", "😬", "🫠", "😅")
_OWN_STATEMENT_WORDS = 3  # "…, maybe it's thermal throttling" opens a statement; "…, maybe?" still doubts the check
# a clause that opens by doubting a statement ("I think the GEMM is …", "not sure though", "probably it's …")
_DOUBTED_STATEMENT = re.compile(
    r"\W*(?:i think|i suspect|i guess|i believe|not sure|(?:maybe|probably|possibly) (?:it'?s|it is|this is|that'?s))\b"
)
# "more workers, pin_memory, and maybe decode on the GPU": a later list item opens its own doubt
_DOUBT_OPENS = re.compile(
    r"\s*(?:(?:and|or|plus|then|also) )?"
    r"(?:maybe|perhaps|possibly|probably|i think|i guess|i suspect|could be|might be)\b"
)
# one of these is in every DENIED_BY_NEXT match ("no" also finds "nope")
_DENIED_WORDS = ("not", "no", "none", "out", "luck", "apply", "resist", "n't", "trust", "ignore", "cannot")
_HEDGED_WORDS = (
    "not",
    "wrong",
    "quote",
    "verified",
    "guess",
    "first",
    "n't",
    "double",
    "confirm",
    "tbc",
    "only",
)  # … and in every HEDGED_BY_NEXT match


def _options_listed(text: str, may_deny: bool) -> bool:
    """The clause lists options "X, Y or Z", and no denial opens the list ("bubbles, not a slow stage, a throttled
    GPU or comm" denies three rivals, it offers none)."""
    listed = _LISTED_OPTIONS.search(text)
    if listed is None:
        return False
    return not (may_deny and _DENIED_LIST_OPEN.search(text, max(0, listed.start() - LOOK), listed.start() + 1))


_VAGUE_TAIL = re.compile(
    r"\s+or (?:something|whatever|similar|so|the like|thereabouts)\b(?: (?:like (?:that|this)|similar))?"
)


def offers_alternatives(text: str) -> bool:
    """The clause offers two or more possibilities in its own words ("either X or Y", "could be X, could be Y",
    "X, Y or Z"), not merely by standing in a run of questions."""
    text = _VAGUE_TAIL.sub("", text)  # "expandable segments or something" names one thing vaguely
    said = words(text)
    return bool(_ALTERNATIVE_WORDS.search(text, said)) and (
        _ALTERNATIVES.matches(text, said) or ("," in text and "or" in text and _options_listed(text, True))
    )


class ClauseReading:
    """The polarity of matches in one clause, each pattern run at most once per position."""

    __slots__ = (
        "_after",
        "_after_text",
        "_answered",
        "_asks",
        "_before",
        "_consequent",
        "_context",
        "_denied",
        "_flags",
        "_frame_end",
        "_gates",
        "_hedged_by_lead",
        "_hedged_by_next",
        "_held_by_next",
        "_inside",
        "_keywords",
        "_lead_lists_candidates",
        "_lead_lists_checks",
        "_naming_keywords",
        "_question_run",
        "_sarcastic",
        "_stated",
        "_story",
        "_words",
        "text",
        "undecided",
    )

    def __init__(
        self,
        clause: Clause,
        lead: Clause | None,
        undecided: bool,
        follow: Clause | None = None,
        told: bool = False,
        list_lead: Clause | None = None,
        held: bool = False,
        asked_before: bool = False,
        consequent: bool = False,
        hedged_by_lead: bool = False,
        stated: bool = True,
        sarcastic: bool = False,
    ) -> None:
        self.text = clause.text
        self._sarcastic = sarcastic  # a later clause of the same sentence closes it with a /s tag
        self._stated = stated  # the reply says something besides questions
        self._story = told and bool(ANECDOTE.search(clause.text))  # a past job, not this trace
        # the next clause is read only at its start, and only when it holds a word its patterns need
        after = follow.text if follow is not None else ""
        head = after[:48]
        self._denied: bool | None = None if any(w in head for w in _DENIED_WORDS) else False
        if clause.colon and _VERDICT_NO.match(after):  # a checklist line: "Slow rank: no, backward ends together"
            self._denied = True
        self._after_text = head
        self._answered = clause.text.endswith("?") and bool(_YES.match(after))
        # a question back, or a question that carries one on ("what's the DDP config? bucket size, how many gpus?")
        # ("is this eager mode? have you tried torch.compile?": the suggestion after a question back still suggests)
        self._asks = (
            clause.text.endswith("?")
            and (asked_before or bool(QUESTION_BACK.search(clause.text)))
            and not _SUGGESTS.match(clause.text)
        )
        # "prefill HOL blocking? KV preemption? launch-bound decode?": a run of questions offers alternatives
        # ("maybe HOL blocking? can you pull the request log?" offers one candidate and asks for something)
        # ("isn't the all-reduce after backward? like the hooks stopped firing?" elaborates one candidate)
        self._question_run = clause.text.endswith("?") and (
            (
                lead is not None
                and lead.text.endswith("?")
                and not _asking(lead.text)
                and not _ELABORATES.match(clause.text)
                and not _REMEDY_QUESTION.match(lead.text)
            )
            or (
                after.endswith("?")
                and not _asking(after)
                and not _ELABORATES.match(after)
                and not _REMEDY_QUESTION.match(after)
            )
        )
        self._hedged_by_next = any(w in head for w in _HEDGED_WORDS) and bool(HEDGED_BY_NEXT.search(after))
        self._held_by_next = held  # a later clause holds the verdict back ("… before calling it clean")
        self.undecided = undecided  # the whole reply refuses to commit
        self._lead_lists_checks = lead is not None and lead.colon and bool(_LEADS_INTO_CHECKS.search(lead.text))
        self._consequent = consequent  # "if it's cudaMalloc, | it's the allocator → | expandable_segments"
        self._hedged_by_lead = hedged_by_lead
        self._sarcastic = (
            sarcastic  # the sentence it is in ends with a sarcasm tag ("oh sure, it's X, that's why … /s")
        )
        self._lead_lists_candidates = list_lead is not None and bool(_LEADS_INTO_CANDIDATES.search(list_lead.text))
        text = self.text
        # (negation, exoneration): whether the clause holds a word the pattern needs; the fix/check context and the
        # sarcasm tag matter only for a diagnosis named here, and are read the first time one is
        said = self._words = words(text)
        self._keywords = (bool(_NEGATION_WORDS.search(text, said)), bool(_EXONERATION_WORDS.search(text, said)))
        # "isn't this just rank 3 being slow?" puts X forward as a question: the leading "isn't" denies nothing
        frame = _NEGATIVE_QUESTION.match(text) if self._keywords[0] and text.endswith("?") else None
        self._frame_end = frame.end() if frame is not None else 0
        self._naming_keywords: tuple[bool, bool] | None = None
        self._before: dict[int, bool] = {}
        self._after: dict[int, bool] = {}
        self._inside: dict[tuple[int, int], bool] = {}
        self._context: dict[int, bool] = {}
        self._flags: Flags | None = None
        self._gates: tuple[bool, bool] | None = None  # (in place, futile): the clause holds a word the test needs

    def negated(self, start: int, end: int, negative_rule: bool, check: bool = False) -> bool:
        """The words at text[start:end] are denied, exonerated or rejected ("not X", "X is fine", "rule out X")."""
        if self._denied is None:
            self._denied = bool(DENIED_BY_NEXT.search(self._after_text))
        if self._denied:
            return True
        may_negate, may_exonerate = self._keywords[0], self._keywords[1]
        if may_negate and self._negation_before(start):
            return not (check and self._check_not_denied(start))
        if may_exonerate and self._exonerated_after(end):
            # "MFU 52% on H100, which is fine": the check's reading is fine; the check was still made
            return not (check and bool(_READING_FINE_AFTER.search(self.text[end : end + LOOK])))
        if negative_rule:  # "not an overlap problem" rejects overlap, it does not claim its absence
            return bool(_NEGATED_PROBLEM_AFTER.search(self.text[end : end + LOOK]))
        # "the all-reduce is not overlapped" ≠ "overlap the all-reduce"
        return may_negate and self._negation_inside(start, end)

    def conditional_at(self, end: int) -> bool:
        """A check or fix ending at text[:end] is offered as a branch ("if it's X, do A"), not merely followed by a
        later list item that has a condition of its own."""
        if not self.flags()[3]:
            return False
        text = self.text
        if _CONFIRMED.match(text):
            return False  # "if confirmed, swap in FlashAttention": the reply's own diagnosis checked, not a branch
        if _CONDITION.match(text) or _MID_CONDITION.search(text[:end]):
            return True  # the clause opens with its condition, or the condition comes before the check or fix
        later = _MID_CONDITION.search(text, end)
        return later is None or not _LATER_ITEM.search(text, end, later.start())

    def _check_not_denied(self, start: int) -> bool:
        """The negation before a check is no denial of it: "I wouldn't commit without an ncu pass" asks for the
        check; "line the ITL spikes up against the request log" compares, it does not argue against."""
        piece = self.text[max(0, start - LOOK) : start]
        if _WANTS_CHECK_BEFORE.search(piece):
            return True
        states = [m.end() for m in _DENIED_STATE_BEFORE.finditer(piece)]
        if states and not _NEGATION_BEFORE.search(piece, states[-1]):
            return True
        return "against" in piece and not _NEGATION_BEFORE.search(piece.replace("against", "versus"))

    def in_place(self, start: int, end: int) -> bool:
        """A fix named at text[start:end] is already there ("CUDA graphs keep the queue ahead"): not proposed."""
        text = self.text
        if (
            _NOUN_AFTER.match(text, end)
            and _ATTRIBUTIVE_BEFORE.search(text, max(0, start - LOOK), start)
            and not _EXCHANGED_FOR.search(text, max(0, start - LOOK), start)
        ):
            return True  # "a fixed-shape job", "the refactor that split the fused MLP": a thing the job has
        if not self._gated()[0]:
            return False
        after = text[end : end + LOOK]
        if _CHANGE_AFTER.search(after):
            return False  # "num_workers is set to 2, raise it to 12": the setting is named to be changed
        before = text[max(0, start - LOOK) : start]
        if _IN_PLACE_AFTER.search(after) or _IN_PLACE_BEFORE.search(before):
            return True
        described = (
            _STATE_AFTER.search(after)
            or _COPULA_INSIDE.search(text[start:end])
            or (
                _COPULA_BEFORE.search(before)
                and _PARTICIPLE_START.match(text, start)
                and not _RELATIVE_COPULA_BEFORE.search(before)
            )
        )
        if not described:
            return False
        return not _STATE_WANTED_BEFORE.search(before)  # "make sure the comm is hidden" asks for the state

    def futile(self, end: int) -> bool:
        """A fix ending at text[:end] is named to be dismissed: "tuning NCCL won't touch it" (not a fix said to be
        one part of the cure: "torch.compile alone won't fix all of it", "won't solve everything by itself")."""
        if not self._gated()[1]:
            return False
        found = _FUTILE_AFTER.match(self.text, end, end + LOOK)
        if found is None:
            return False
        return not (_ONE_PART.search(found.group()) or _NOT_ALL_AFTER.match(self.text, found.end(), found.end() + LOOK))

    def _gated(self) -> tuple[bool, bool]:
        if self._gates is None:
            text = self.text
            self._gates = (any(w in text for w in _IN_PLACE_WORDS), "n't" in text or "not" in text or "nt " in text)
        return self._gates

    def quizzes(self) -> bool:
        """A question that quizzes the reader ("how many kernels do you think this step launches?"): the check in it is
        put to them as a puzzle, not proposed."""
        text = self.text
        return text.endswith("?") and "you" in text and bool(_WH_OPENS.match(text)) and bool(_QUIZ.search(text))

    def asks(self) -> bool:
        """The clause is a question back: it claims no diagnosis and offers no fix (a check asked about — "how many
        cudaMalloc per step?" — is still a check, offered tentatively)."""
        return self._asks

    def puts_forward(self) -> bool:
        """The question is a yes/no question about the trace ("is this just X?"): a name in it is offered as a guess,
        not asked about."""
        text = self.text
        return (
            text.endswith("?")
            and bool(_PUTS_FORWARD.match(text))
            and bool(_GUESSING_QUESTION.search(text) or _GUESS_OWNED_AFTER.match(self._after_text))
        )

    def not_a_claim(self, start: int) -> bool:
        """A diagnosis named here is listed as a check, named inside a fix or a check, or said in sarcasm."""
        if self._lead_lists_checks:  # "I'd check: memory_stats, .item() syncs, …" lists checks, it claims nothing
            return True
        if self._naming_keywords is None:
            self._naming_keywords = (
                bool(_CONTEXT_WORDS.search(self.text, self._words)),
                bool(_SARCASM.search(self.text)),
            )
        if self._naming_keywords[0] and self._in_context(start):
            return True
        return self.mocked()

    def mocked(self) -> bool:
        """Said in sarcasm: "sure, it's totally the network /s" claims the opposite, "let's add CUDA graphs /s"
        rejects the fix; so does "oh sure, rank 0 is a straggler, that's why every rank looks the same /s", the tag
        closing a later clause of the sentence."""
        if self._naming_keywords is None:
            self._naming_keywords = (bool(_CONTEXT_KEYWORD.search(self.text)), bool(_SARCASM.search(self.text)))
        return self._naming_keywords[1] or self._sarcastic

    def flags(self) -> Flags:
        if self._flags is None:
            text = self.text
            alternative = (
                self.undecided
                or self._lead_lists_candidates
                or self._question_run
                or bool(
                    _ALTERNATIVE_WORDS.search(text, self._words)
                    and (
                        _ALTERNATIVES.matches(text, self._words)
                        or ("," in text and "or" in text and _options_listed(text, self._keywords[0]))
                    )
                )
            )
            # "why is rank 4 slow?" presumes it is
            rhetorical = text.endswith("?") and (
                bool(_TAG_QUESTION.search(text))
                or (any(w in text for w in _RHETORICAL_WORDS) and bool(RHETORICAL.search(text)))
            )
            # "is one rank late? | yes: …" asks what it answers at once
            asked = text[:-1] if rhetorical or self._answered else text
            hedge = bool(HEDGE.search(asked))  # _REMEDY_HEDGE holds a subset of HEDGE's marks
            self._flags = (
                alternative,
                alternative or hedge,
                self._hedged_by_next
                or self._hedged_by_lead
                or self._held_by_next
                or self._story
                or bool(_TENTATIVE_WORDS.search(text, self._words)),
                self._consequent or (any(w in text for w in _CONDITION_WORDS) and bool(_CONDITION.search(text))),
                self._story
                or self._hedged_by_next
                or bool(_SOFT_REMEDY.search(text))
                or (hedge and bool(_REMEDY_HEDGE.search(asked))),
            )
        return self._flags

    def remedy_soft(self, start: int, end: int, check: bool) -> bool:
        """A check or fix at text[start:end] is offered without conviction.

        A shrug or a thinking face closes the statement before it ("prefill blocking decode i'd guess 🤔 scatter ITL
        vs prefill tokens"): the doubt before it is not about the check after it. A doubt after a comma that opens a
        statement of its own ("look at the clocks with nvidia-smi, maybe it's thermal") is about what follows, not
        the check before it. In a reply that also states something, asking for a check ("can you grab nvidia-smi
        clocks on every node?", "what's DRAM throughput in ncu?") proposes it: the question mark alone does not
        soften a check, as it softens a fix ("have you tried torch.compile?"). A reply made only of questions offers
        its checks as questions."""
        soft = self.flags()[4]
        if not soft or self._story or self._hedged_by_next:
            return soft
        text = self.text
        # "I think the GEMM is bandwidth-limited, would want to confirm with ncu": the doubt in a statement of its own
        # before the comma is about that statement (the diagnosis), not the check said after it
        comma = text.rfind(",", 0, start) if check and _DOUBTED_STATEMENT.match(text) else -1
        if comma > 0 and len(text[:comma].split()) >= _OWN_STATEMENT_WORDS and not _DOUBT_OPENS.match(text, comma + 1):
            start, end, text = start - comma - 1, end - comma - 1, text[comma + 1 :]
            if not self._soft_text(text):
                return False
        closed = max(text.rfind(mark, 0, start) for mark in _CLOSING_EMOJI)
        if closed >= 0:  # the doubt may belong to the statement the emoji closed
            text, end, soft = text[closed + 1 :], end - closed - 1, self._soft_text(text[closed + 1 :])
            if not soft:
                return False
        emoji = _EMOJI.search(text, end)
        if emoji is not None and emoji.group() not in _CLOSING_EMOJI and not self._soft_text(text[: emoji.start()]):
            return False  # "correlate X with Y 🔍 token budget maybe": the emoji closed the statement of the check
        cut = text.find(",", end)
        if cut != -1 and _DOUBT_OPENS.match(text, cut + 1) and len(text[cut + 1 :].split()) >= _OWN_STATEMENT_WORDS:
            text = text[:cut]
            if _DOUBT_BEFORE.search(text):  # "probably fixable with X, or maybe Y": the doubt covers both
                return True
        elif not (check and self._stated and text.endswith("?")):
            return soft
        if check and self._stated:
            text = text.rstrip("?").rstrip()
        return self._soft_text(text)

    @staticmethod
    def _soft_text(text: str) -> bool:
        return bool(_SOFT_REMEDY.search(text) or (HEDGE.search(text) and _REMEDY_HEDGE.search(text)))

    # the patterns look at most a few words back or ahead: a bounded slice keeps long clauses cheap
    def _negation_before(self, start: int) -> bool:
        found = self._before.get(start)
        if found is None:
            piece = self.text[max(0, start - LOOK, self._frame_end) : start]
            # the keyword test first: most slices before a match hold no negation word at all
            found = bool(_NEGATION_KEYWORD.search(piece))
            if found:  # an emoji closed the statement before it ("ITL against prefill tokens 📈 chunked prefill")
                piece = piece[max((m.end() for m in _EMOJI.finditer(piece)), default=0) :]
                # Every match of _NEGATION_BEFORE runs to the slice's end ($), and none of its parts matches ".;,→"
                # (nor does a lookbehind of it hold one), so no match starts before the last of them: searching only
                # what follows it gives the same answer, over a few words instead of 100 characters. An opening
                # bracket starts an aside the negation before it does not reach ("decode isn't CUDA-graphed (launch
                # bound, …)" names what is missing and the problem it causes).
                cut = max(piece.rfind("."), piece.rfind(";"), piece.rfind(","), piece.rfind("→"), piece.rfind("("))
                found = bool(_NEGATION_BEFORE.search(piece, cut + 1))
                if not found and cut >= 0 and piece[cut] == ",":
                    found = self._denied_list_item(piece, start)
            self._before[start] = found
        return found

    def _denied_list_item(self, piece: str, start: int) -> bool:
        """The words at `start` are a later item of a list a denial opens ("not a slow stage, a throttled GPU or
        comm"): the last item, after "or", or a middle one with the list closed by "or" after it."""
        listed = _DENIED_LIST_BEFORE.search(piece)
        if listed is None:
            return False
        if listed.group("last"):
            return True
        return bool(_LIST_CLOSED_AFTER.match(self.text, start, start + 2 * LOOK))

    def _exonerated_after(self, end: int) -> bool:
        found = self._after.get(end)
        if found is None:
            after = self.text[end : end + LOOK]
            found = self._after[end] = bool(
                _EXONERATED_AFTER.search(after) or (self.text.endswith("'s", 0, end) and _OUT_AFTER.match(after))
            )
        return found

    def _negation_inside(self, start: int, end: int) -> bool:
        found = self._inside.get((start, end))
        if found is None:
            piece = self.text[start:end]
            found = bool(_NEGATION_INSIDE.search(piece))
            if not found and "nothing" in piece:  # read on past the span: "nothing to chase" is no denial
                found = any(m.start() < end for m in _NOTHING_DENIES.finditer(self.text, start, end + 8))
            self._inside[(start, end)] = found
        return found

    def _in_context(self, start: int) -> bool:
        found = self._context.get(start)
        if found is None:
            text = self.text[max(0, start - LOOK) : start]
            found = bool(_FIX_CONTEXT_BEFORE.search(text) or _MEASURE_CONTEXT_BEFORE.search(text))
            self._context[start] = found
        return found

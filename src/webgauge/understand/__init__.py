"""The understand suite: build, run and score a web-understanding benchmark (WebRSSBench-style).

>>> manifest = build_benchmark("bench", seed=0, synthetic=8, pages=["../shared/data/design2code/pages"])
>>> run_benchmark("bench", "runs/u", ["random-guess", "label-oracle", "dom-heuristic"])
>>> write_report("runs/u")          # runs/u/report/understand.html
>>> finetune("bench", "models/Qwen2.5-VL-7B-Instruct", "adapters")   # LoRA per task, WebRSSBench §5.2

Eight tasks: position, UI group, form filling, hint text, color / text / layout robustness
and safety-critical detection. See the modules for the exact definitions.
"""

from .baselines import BASELINES, Answerer, DomHeuristic, LabelOracle, ModelAnswerer, RandomBaseline
from .build import BUILD_PROFILE, build_benchmark, build_benchmark_async
from .consensus import MIN_VOTERS, NO_SIGNAL, centroid_answer, consensus_target, majority_answer, voters
from .export import SPLITS, answer_text, page_splits, read_questions
from .finetune import (
                       PAPER_HYPER,
                       PAPER_TASKS,
                       FinetuneError,
                       FinetuneInterrupted,
                       FinetuneResult,
                       TrainStep,
                       finetune,
                       load_examples,
)
from .finetune_table import PAPER_FINETUNE, finetune_rows
from .human import apply_human_labels, read_human_labels
from .labeller import UI_GROUPS, irreversible_buttons, primary_button, ui_group
from .parsers import parse_answer
from .prompts import all_prompts, load_prompt, prompt_id
from .questions import TASKS, PageContext, Question, TaskBuilder
from .records import AnswerRecord, ScoreRecord
from .relations import RELATIONS, difficulty, relation
from .report import write_report
from .runner import answer_item, run_benchmark, split_questions
from .scorers import label_match, robustness_score, tfidf_cosine
from .scoring import RunScores, score_run, summarize
from .semantic import SAME_MEANING, same_meaning

__all__ = [
    "build_benchmark", "build_benchmark_async", "run_benchmark", "write_report", "score_run", "summarize",
    "answer_item", "read_questions", "answer_text", "Question", "PageContext", "TaskBuilder", "TASKS",
    "BUILD_PROFILE", "Answerer", "ModelAnswerer", "RandomBaseline", "DomHeuristic", "LabelOracle", "BASELINES",
    "relation", "difficulty", "RELATIONS", "ui_group", "primary_button", "irreversible_buttons", "UI_GROUPS",
    "parse_answer", "label_match", "robustness_score", "tfidf_cosine", "majority_answer", "centroid_answer",
    "read_human_labels", "apply_human_labels", "load_prompt", "prompt_id", "all_prompts",
    "consensus_target", "voters", "MIN_VOTERS", "NO_SIGNAL", "AnswerRecord", "ScoreRecord", "RunScores",
    "SAME_MEANING", "same_meaning",
    "SPLITS", "page_splits", "split_questions", "finetune", "load_examples", "FinetuneResult", "FinetuneError",
    "FinetuneInterrupted", "TrainStep", "PAPER_HYPER", "PAPER_TASKS", "PAPER_FINETUNE", "finetune_rows",
]

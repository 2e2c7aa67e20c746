"""Design2Code's visual score (Si et al., 2024), beside MRWeb's metrics: ``--metrics d2c``.

Text blocks by two-colour rendering (:mod:`.blocks`, :mod:`.capture`), block matching with merging
(:mod:`.matching`), and Block-Match, Text, Position, Color, CLIP and their overall (:mod:`.score`).
See ``../README.md`` for how it follows the published code and where it deviates.
"""

from .blocks import TEXT_TAGS, TextBlock, TextItem, blocks_from_renders, colour_pool, merge_same_box, resolve_colour
from .capture import D2C_PROFILE, D2CCapture, d2c_capture
from .matching import match_blocks, merge_gain, merge_pair, similarity
from .score import D2C_METRICS, D2C_WEIGHTS, D2CScores, clip_input, colour_similarity, d2c_block_scores, d2c_scores

__all__ = [
    "TEXT_TAGS", "TextBlock", "TextItem", "blocks_from_renders", "colour_pool", "merge_same_box", "resolve_colour",
    "D2C_PROFILE", "D2CCapture", "d2c_capture",
    "match_blocks", "merge_gain", "merge_pair", "similarity",
    "D2C_METRICS", "D2C_WEIGHTS", "D2CScores", "clip_input", "colour_similarity", "d2c_block_scores", "d2c_scores",
]

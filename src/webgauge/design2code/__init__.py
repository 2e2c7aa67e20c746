"""webgauge.design2code: multi-page resource-aware generation (MRWeb).

A model receives UI designs (screenshots) with a **resource list** (links, images,
background images, backend routes, each with a box, URL, text and colour) and must produce a
working multi-page website. This package builds instances, generates sites (four prompting
strategies or a no-network baseline), serves them with a recording backend and scores them:

* visual – MAE, PSNR, SSIM, NEMD (MRWeb's definition, exact, full resolution), CLIP and LPIPS
  (local weights);
* functional – resource existence ratio, navigation, image loading, backend submissions;
* fine-grained – position, area, CIEDE2000 colour and text differences over optimal matches;
* IQA – how well each metric tracks human ratings (MRWeb Table 2);
* MRWeb-format data in and out (its dataset layout, resource lists and outside generations);
* a local tool to draw resources on designs, generate, preview and download a site.

See ``README.md`` in this folder for the pipeline and the formats.
"""

from .align import ALIGN_MODES, align_pair, to_rgb_array
from .assets import asset_references, page_assets
from .backend import Route, SiteBackend, Submission
from .baseline import BaselineGenerator, baseline_page
from .ciede2000 import ciede2000, color_difference, parse_css_color, rgb_to_lab
from .codeextract import ExtractedCode, extract_code
from .complexity import complexity_rows, count_tokens
from .dataset import INSTANCE_VERSION, Instance, PageRecord, build_instance, build_instances, load_instances
from .extract import extract_live, extract_page, extract_site
from .finegrained import FineGrained, fine_grained
from .functional import check_backend, check_images, check_navigation, rer
from .generate import ModelGenerator, PageGenerator, generate_site, make_generator, wire_links
from .iqa import Rating, compute_mos, inter_rater, iqa_table, read_ratings_csv, read_scores_csv
from .matching import MatchedPair, match_resources, position_offset, text_difference
from .mrweb import MRWEB_TYPES, MRWEB_WINDOW, export_mrweb, import_mrweb, resources_from_mrweb, resources_to_mrweb
from .neural import ClipScorer, LpipsScorer, Missing, load_clip, load_lpips
from .prompts import MRWEB_PROMPTS, PROMPT_SETS, PROMPTS, STRATEGIES, PageTask, build_messages, refine_messages
from .records import GenerationRecord, PageScore, SiteScore
from .refrender import MeasuredReference, measure_reference, renders_reference, stand_ins_for
from .resources import RESOURCE_LIST_VERSION, RESOURCE_TYPES, Resource, ResourceList
from .runs import collect_scores, generate_run, import_generations, score_run
from .score import aggregate_pages, score_site
from .sitegen import SiteSpec, synthetic_site
from .urls import URL_MATCH_MODES, mrweb_url, url_key
from .visual import emd_1d, emd_max, emd_pixels, mae, nemd, nemd_distmax, psnr, ssim, visual_metrics

__all__ = [
    "ALIGN_MODES", "align_pair", "to_rgb_array",
    "asset_references", "page_assets",
    "Route", "SiteBackend", "Submission",
    "BaselineGenerator", "baseline_page",
    "ciede2000", "color_difference", "parse_css_color", "rgb_to_lab",
    "ExtractedCode", "extract_code",
    "complexity_rows", "count_tokens",
    "INSTANCE_VERSION", "Instance", "PageRecord", "build_instance", "build_instances", "load_instances",
    "extract_live", "extract_page", "extract_site",
    "FineGrained", "fine_grained",
    "check_backend", "check_images", "check_navigation", "rer",
    "ModelGenerator", "PageGenerator", "generate_site", "make_generator", "wire_links",
    "MRWEB_TYPES", "MRWEB_WINDOW", "export_mrweb", "import_mrweb", "resources_from_mrweb", "resources_to_mrweb",
    "Rating", "compute_mos", "inter_rater", "iqa_table", "read_ratings_csv", "read_scores_csv",
    "MatchedPair", "match_resources", "position_offset", "text_difference",
    "ClipScorer", "LpipsScorer", "Missing", "load_clip", "load_lpips",
    "MRWEB_PROMPTS", "PROMPT_SETS", "PROMPTS", "STRATEGIES", "PageTask", "build_messages", "refine_messages",
    "GenerationRecord", "PageScore", "SiteScore",
    "MeasuredReference", "measure_reference", "renders_reference", "stand_ins_for",
    "RESOURCE_LIST_VERSION", "RESOURCE_TYPES", "Resource", "ResourceList",
    "collect_scores", "generate_run", "import_generations", "score_run",
    "aggregate_pages", "score_site",
    "SiteSpec", "synthetic_site",
    "URL_MATCH_MODES", "mrweb_url", "url_key",
    "emd_1d", "emd_max", "emd_pixels", "mae", "nemd", "nemd_distmax", "psnr", "ssim", "visual_metrics",
]

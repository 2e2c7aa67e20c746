"""Django settings of the webgauge shop: django-oscar on SQLite, DEBUG off, loopback only.

Written by webgauge (``webgauge arena apps install oscar`` copies this project next to the
shop's virtualenv). The data folder (``db.sqlite3`` and ``media/``) comes from
``WG_OSCAR_DATA`` so that seeds are built in scratch folders with the same project.
Sessions, Django's cache and sorl-thumbnail's key-value store all live in the database, so
restoring the database drops sessions and brings every cache back to the snapshot's.
"""

import os
from pathlib import Path

from oscar import INSTALLED_APPS as OSCAR_APPS
from oscar.defaults import *  # noqa: F403  (Oscar's documented way to start a project's settings)

SITE_ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("WG_OSCAR_DATA") or SITE_ROOT.parent / "data")

SECRET_KEY = "webgauge-local-shop-not-secret"  # the shop only ever listens on 127.0.0.1
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
SITE_ID = 1
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-gb"

INSTALLED_APPS = [*OSCAR_APPS, "sorl.thumbnail"]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]
ROOT_URLCONF = "wgshop.urls"

TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug",
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.template.context_processors.i18n",
        "django.contrib.messages.context_processors.messages",
        "oscar.apps.search.context_processors.search_form",
        "oscar.apps.checkout.context_processors.checkout",
        "oscar.apps.communication.notifications.context_processors.notifications",
        "oscar.core.context_processors.metadata",
    ]},
}]

# One connection per server thread, kept across requests: SQLite parses the schema (with the reset's undo-log
# triggers) once per connection, not once per request. A reset restores the rows in place (the same file), so
# a kept connection reads the restored rows. No fsync per commit: the served database is a scratch copy of a
# seed's snapshot, restored on every reset.
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATA / "db.sqlite3"),
                         "CONN_MAX_AGE": None, "CONN_HEALTH_CHECKS": True,
                         "OPTIONS": {"timeout": 20, "init_command": "PRAGMA synchronous=OFF"}}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
# Django's cache is a table of the shop's database: a seed's snapshot holds it warm (the thumbnails'
# records, category URLs: what rendering the catalogue once stored), restored with the data it was made
# from; entries do not expire with the wall clock (an old snapshot is as warm as a new one)
CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "wg_cache",
                      "TIMEOUT": None}}
SESSION_ENGINE = "django.contrib.sessions.backends.db"
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # nothing leaves the machine

AUTHENTICATION_BACKENDS = ("oscar.apps.customer.auth_backends.EmailBackend",
                           "django.contrib.auth.backends.ModelBackend")
# Django's own PBKDF2 with fewer rounds: sign-ins take milliseconds in repeated episodes
PASSWORD_HASHERS = ["wgshop.hashers.QuickPBKDF2"]

# Oscar browses and searches the catalogue through Haystack; Whoosh is its pure-Python backend. The index
# lives in the data folder (restored with the snapshot) and is rebuilt when a seed is built.
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
                                    "PATH": str(DATA / "whoosh_index")}}
HAYSTACK_SIGNAL_PROCESSOR = "haystack.signals.BaseSignalProcessor"
OSCAR_SEARCH_FACETS: dict[str, dict] = {"fields": {}, "queries": {}}  # Whoosh has no facets

STATIC_URL = "/static/"
STATIC_ROOT = str(SITE_ROOT.parent / "static")
MEDIA_URL = "/media/"
MEDIA_ROOT = str(DATA / "media")
THUMBNAIL_KVSTORE = "sorl.thumbnail.kvstores.cached_db_kvstore.KVStore"
THUMBNAIL_PRESERVE_FORMAT = True

OSCAR_SHOP_NAME = "Larder & Loom"
OSCAR_SHOP_TAGLINE = "Homeware, clothing and gear"
OSCAR_DEFAULT_CURRENCY = "GBP"
OSCAR_IMAGE_FOLDER = "images/products/"  # no date folders: a seed's files have fixed names
OSCAR_MISSING_IMAGE_URL = "image_not_found.jpg"
OSCAR_ALLOW_ANON_CHECKOUT = False
OSCAR_ALLOW_ANON_REVIEWS = False
OSCAR_MODERATE_REVIEWS = False
OSCAR_PRODUCTS_PER_PAGE = 24

LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"console": {"class": "logging.StreamHandler"}},
           "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}}}

# the order pipeline the dashboard offers (a status change moves an order along it)
OSCAR_INITIAL_ORDER_STATUS = "Pending"
OSCAR_INITIAL_LINE_STATUS = "Pending"
OSCAR_ORDER_STATUS_PIPELINE = {"Pending": ("Being processed", "Cancelled"),
                               "Being processed": ("Complete", "Cancelled"), "Complete": (), "Cancelled": ()}
OSCAR_LINE_STATUS_PIPELINE = OSCAR_ORDER_STATUS_PIPELINE

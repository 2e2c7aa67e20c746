"""Django settings of the webgauge forum: Spirit on SQLite, DEBUG off, loopback only.

Written by webgauge (``webgauge arena apps install spirit`` copies this project next to the
forum's virtualenv). The apps, middleware and context processors are the ones Spirit's own
``spirit startproject`` template lists. The data folder (``db.sqlite3``, ``media/`` and the
search index ``st_search/``) comes from ``WG_SPIRIT_DATA`` so that seeds are built in scratch
folders with the same project. Sessions and Django's caches live in the database, so restoring
the database file drops sessions and brings the caches back to the snapshot's.
"""

import os
from pathlib import Path

SITE_ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("WG_SPIRIT_DATA") or SITE_ROOT.parent / "data")

SECRET_KEY = "webgauge-local-forum-not-secret"  # the forum only ever listens on 127.0.0.1
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"
USE_I18N = True

INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
    "django.contrib.messages", "django.contrib.staticfiles", "django.contrib.humanize",
    "spirit.core", "spirit.admin", "spirit.search", "spirit.user", "spirit.user.admin", "spirit.user.auth",
    "spirit.category", "spirit.category.admin", "spirit.topic", "spirit.topic.admin", "spirit.topic.favorite",
    "spirit.topic.moderate", "spirit.topic.notification", "spirit.topic.private", "spirit.topic.unread",
    "spirit.comment", "spirit.comment.bookmark", "spirit.comment.flag", "spirit.comment.flag.admin",
    "spirit.comment.history", "spirit.comment.like", "spirit.comment.poll",
    "djconfig", "haystack",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "spirit.user.middleware.TimezoneMiddleware",
    "spirit.user.middleware.LastIPMiddleware",
    "spirit.user.middleware.LastSeenMiddleware",
    "spirit.user.middleware.ActiveUserMiddleware",
    "spirit.core.middleware.PrivateForumMiddleware",
    "djconfig.middleware.DjConfigMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.contrib.auth.context_processors.auth", "django.template.context_processors.debug",
        "django.template.context_processors.i18n", "django.template.context_processors.media",
        "django.template.context_processors.static", "django.template.context_processors.tz",
        "django.template.context_processors.request", "django.contrib.messages.context_processors.messages",
        "djconfig.context_processors.config",
    ]},
}]
ROOT_URLCONF = "wgforum.urls"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATA / "db.sqlite3"),
                         "OPTIONS": {"timeout": 20}}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "spirit_cache"},
    "st_rate_limit": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "spirit_rl_cache",
                      "TIMEOUT": None},
}
SESSION_ENGINE = "django.contrib.sessions.backends.db"
AUTHENTICATION_BACKENDS = ["spirit.user.auth.backends.UsernameAuthBackend",
                           "spirit.user.auth.backends.EmailAuthBackend"]
PASSWORD_HASHERS = ["wgforum.hashers.QuickPBKDF2"]
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
                                    "PATH": str(DATA / "st_search")}}
HAYSTACK_SIGNAL_PROCESSOR = "spirit.search.signals.RealtimeSignalProcessor"
LOGIN_URL = "spirit:user:auth:login"
LOGIN_REDIRECT_URL = "spirit:index"
LOGOUT_REDIRECT_URL = "spirit:index"
STATIC_URL = "/static/"
STATIC_ROOT = str(SITE_ROOT.parent / "static")
MEDIA_URL = "/media/"
MEDIA_ROOT = str(DATA / "media")
STORAGES = {"default": {"BACKEND": "spirit.core.storage.OverwriteFileSystemStorage"},
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # nothing leaves the machine
ST_SITE_URL = "http://127.0.0.1/"
ST_RATELIMIT_ENABLE = False  # an agent posts and signs in many times a minute
ST_DOUBLE_POST_THRESHOLD_MINUTES = 0
ST_UPLOAD_IMAGE_ENABLED = False
ST_NOTIFY_WHEN = "never"
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"console": {"class": "logging.StreamHandler"}},
           "loggers": {"django": {"handlers": ["console"], "level": "ERROR", "propagate": False}}}

"""The shop as a WSGI application (served by waitress on loopback: ``webgauge`` starts it)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wgshop.settings")
application = get_wsgi_application()

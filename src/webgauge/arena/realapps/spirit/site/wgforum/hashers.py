"""Django's PBKDF2 hasher with fewer rounds (loopback test forum: sign-ins must not cost half a second)."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2(PBKDF2PasswordHasher):
    iterations = 2000

"""Sign-in pages: the password input, the paths and the titles sites give their sign-in
forms (`sign_in.py` judges with them), each with where it is observed."""

from __future__ import annotations

import re

PASSWORD_INPUT = re.compile(r"<input\b[^>]*\btype\s*=\s*[\"']?password\b", re.IGNORECASE)
SIGN_IN_PATH = re.compile(
    r"/(?:log[-_]?in|sign[-_]?in|sign[-_]?on|sign[-_]?up|register|auth(?:enticate)?|sso"
    r"|account/login|accounts/login|session/new)(?:\.\w{2,5})?(?:/|$|\?)",
    re.IGNORECASE,
)
# A title, heading or title part that is only this says the page is a sign-in form
# (observed on the scrapy/loginform captures, "Sign in · GitHub", "Customer Login"; the
# other languages are the sign-in labels of the same sites' localised versions).
SIGN_IN_PHRASES = frozenset(
    {
        "sign in", "log in", "login", "sign on", "sign up", "signin", "customer login",
        "member login", "members login", "user login", "account login", "sign in or register",
        "log in or sign up", "anmelden", "einloggen", "login anmelden", "logg inn", "logga in",
        "log ind", "inloggen", "aanmelden", "connexion", "se connecter", "identification",
        "iniciar sesión", "acceder", "accedi", "entrar", "iniciar sessão", "zaloguj się",
        "logowanie", "giriş yap", "oturum aç", "войти", "вход", "ログイン", "登录", "登入",
        "로그인", "تسجيل الدخول", "התחברות",
    }
)  # fmt: skip

"""The signal tables the wall judgements read, one module per family of vendors: bot
defences, CAPTCHA widgets and interstitials, consent platforms, web servers' and
frameworks' error pages, paywalls, sign-in forms and script frameworks. Each entry says
where it is documented or observed; the judgements and their thresholds live apart."""

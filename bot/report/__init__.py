"""Steps 6 and 7, pure: check results -> a verdict -> the words users read.

``verdict`` decides success, failure or error (error never counts as success); ``render`` shapes
the report for the templates in ``bot.templates`` (markdown, text, JSON, statuses).
"""

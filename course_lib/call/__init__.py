"""A call's settings and inputs, resolved and checked once, before any scoring: `setting` (the
resolved `Setting` every entry point takes) and `inputs` (the one validator of texts and arguments,
and what a caller is told about empty texts). The metric itself is `course_lib.bertscore`."""

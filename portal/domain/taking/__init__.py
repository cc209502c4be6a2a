"""Taking a test, pure rules: the kinds of test (one registry in `kinds/`), who may open a test and
which screen comes next (`access`), how stored rows read as access facts (`loading`), the survey's
answers, branching and view, the screener, and the worker-details end step."""

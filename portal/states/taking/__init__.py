"""Taking a test in the browser: the rating page's state, the timed session every kind runs on and
its seam (`core`), and one state per kind's screen."""

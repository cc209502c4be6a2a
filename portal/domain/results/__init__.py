"""What a test's results say: shares, intervals and the order effect (pure rules, no database)."""

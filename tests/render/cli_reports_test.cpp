// The report options of the simulate program, run as a user would.

"""cntk.tests: helpers the CNTK tutorials call (not the project's own test suite, which lives in tests/)."""

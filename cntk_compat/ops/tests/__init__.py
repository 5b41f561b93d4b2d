"""cntk.ops.tests: the helpers CNTK's end-to-end tests and examples import from here (not the project's own test
suite, which lives in tests/)."""

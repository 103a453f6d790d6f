"""Helpers of the tests, not tests themselves: the headless browser
(``browser``), where the lossy-cc authors' kernel modules are
(``authors_modules``), the claims' checks every experiment's test runs
(``claims_check``), the scenario fuzzer (``fuzzing``) and the session's
check that tests leave nothing behind (``leftovers``)."""

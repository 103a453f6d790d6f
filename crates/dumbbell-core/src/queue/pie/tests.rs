//! PIE tests.

//! FQ-CoDel tests.

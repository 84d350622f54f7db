//! Animation graphs (state machines, blend spaces) evaluated in bulk (issue 31; work in progress).

// Package repocheck holds checks over the repository's own files, run as tests with the pure-Go suite:
// design notes are cited where they live (docs/, never a folder outside the repository) and nothing names
// a tracker issue number, which a reader of the repository cannot look up; no production function is
// longer than 120 lines (funclen_test.go); no package imports more than 12 others of the module
// (imports_test.go); code that can import oryx gets the backend through oryx.Backend (backend_test.go);
// no committed text file holds an absolute path of a build machine (abspath_test.go); README.md has at most 400
// lines and its layout section names every package directory and top-level folder (readme_test.go); no
// committed file holds a merge conflict's markers (conflict_test.go).
package repocheck

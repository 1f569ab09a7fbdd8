// Compiles the suites' shared precompiled header once (see CMakeLists.txt).

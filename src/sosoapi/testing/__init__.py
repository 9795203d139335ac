"""Test tools that ship with the package, for the test suite, the benchmarks and the demo.

`origin`: a real HTTPS origin on loopback and the trustme CA its certificates come from;
`processes`: `sosoapi serve` and the CLI as real processes; `commands`: the CLI run in
this process; `postgres`: a private schema and connection counting; `memory`: a process's
peak RSS; `pages`: real pages to serve; `results`: stored page results;
`hostile_routes`: an origin's hostile answers (bombs, drips, endless bodies); `cluster`:
a throwaway PostgreSQL cluster; `instances`: many clients' load on several servers.
Nothing in the product imports this package; its extras (trustme, psutil) are imported
only by the module that needs them, when it is imported.
"""

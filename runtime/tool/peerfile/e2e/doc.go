// Package e2e runs share-file and fetch-peer-file through real mur
// processes (tools.md PFILE): a sharer serving its door, a fetcher given
// tasks, every redeem refusal in PFILE-5's order, the records on both
// sides, and no token left in $MURMUR_HOME or on stderr. The benchmark
// redeems a 64 MiB file against a bare net/http ServeContent.
package e2e

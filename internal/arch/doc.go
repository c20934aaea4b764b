// Package arch holds no code: its tests enforce the dependency direction of
// STYLE.md §2 over `go list -deps -json ./...` — TestLayers the layer order
// wire → leaves → door/runtime → launcher/view/conformance → capsule → cmd
// (a package imports only its own layer and those below it), TestImportRules
// the narrower rules inside a layer.
package arch

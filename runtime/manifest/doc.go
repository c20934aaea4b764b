// Package manifest loads murmur.yaml (capsule.md §1): a strict parse with
// gopkg.in/yaml.v3 into a node tree, then typed structs, defaults set in one
// place, and validation in MAN-4's order (steps 1–7), each fault a coded
// diagnostic from runtime/diag. It also loads .env (SES-10), parses and
// matches network allow lists, and holds the reserved tool names (tools.md
// STAGE-5).
//
// # Example
//
//	env, err := manifest.LoadDotEnv(projectDir, cwd, os.Getenv)
//	if err != nil { … }
//	m, warnings, err := manifest.Load("hello/murmur.yaml", env.Getenv)
//	for _, w := range warnings {
//		fmt.Fprint(os.Stderr, w.Render())
//	}
//	if err != nil { … } // a *diag.Diagnostic: E-IO-001, E-MAN-00x, E-RUN-005, E-CAP-0xx
//	fmt.Println(m.Name, m.Inference.Driver.Kind)
package manifest

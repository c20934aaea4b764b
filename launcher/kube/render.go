package kube

import (
	"bytes"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// RenderYAML writes objs as one YAML stream, one document each, in order:
// what `kubectl apply -f` would take.
func RenderYAML(objs []runtime.Object) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

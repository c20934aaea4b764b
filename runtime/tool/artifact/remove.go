package artifact

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
)

// removeNote is RMA-1's note after a removal.
func removeNote(toolName string) string {
	return toolName + " is gone from your tool list from your next turn; a call to it is refused."
}

// RMA-2's refusal texts: each opens with its token (the wording after it is
// ours). No capabilities.install refuses not-granted:, but without the grant
// the tool does not exist (TOOL-3), so that refusal is TOOL-4's.

func removeDeclared(full string) string {
	return fmt.Sprintf("not-removable: %s is declared in murmur.yaml; only an artifact this session pulled can be removed", full)
}

func removeOperatorPin(name string) string {
	return fmt.Sprintf("not-removable: murmur.lock pins %s with origin: operator; only a pin pull-artifact made can be removed", name)
}

// Remove returns the remove-artifact tool (RMA-1..3).
func (in *Installer) Remove() tool.Tool { return &removeTool{in: in} }

type removeTool struct{ in *Installer }

func (t *removeTool) Spec() tool.Spec {
	desc := "Takes out an artifact this session pulled with pull-artifact, named by its full name or its tool name; " +
		"it is gone from your tool list from your next turn and a call to it is refused. " +
		"An artifact murmur.yaml declares cannot be removed."
	return tool.Spec{Name: tool.NameRemoveArtifact, Description: desc, InputSchema: json.RawMessage(pullSchema), Kind: tool.KindRuntime}
}

func (t *removeTool) Call(_ context.Context, _ *tool.CallContext, input json.RawMessage) tool.Result {
	const self = tool.NameRemoveArtifact
	value, ok := tool.StringField(tool.DecodeObject(input), "artifact")
	if !ok || value == "" {
		return tool.Needs(self, "artifact")
	}
	in := t.in
	in.mu.Lock()
	defer in.mu.Unlock()
	_, name := manifest.SplitRef(value)
	reg := in.cfg.Registry()
	h, full := reg.Holder(name)
	named := full == value || name == value // by its full name or its tool name
	switch {
	case h == tool.HeldByDeclared && named:
		return tool.Refusal(self, removeDeclared(full))
	case h != tool.HeldByPulled || !named:
		return tool.Result{Status: tool.Passed, Summary: self + ": " + value + " is not installed",
			Data: tool.JSON(map[string]any{"artifact": value, "removed": false})}
	}
	if refusal, err := in.unpin(name); refusal != "" || err != nil {
		if refusal != "" {
			return tool.Refusal(self, refusal)
		}
		return tool.Result{Status: tool.Failed, Summary: self + ": error", Data: fmt.Sprintf("%s could not be removed from murmur.lock: %v", full, err)}
	}
	reg.RemovePulled(name)
	_ = os.RemoveAll(filepath.Join(in.cfg.RuntimeDir, "tools", name))
	return tool.Result{
		Status:  tool.Passed,
		Summary: self + ": removed " + full,
		Data:    tool.JSON(map[string]any{"artifact": full, "removed": true}),
		Notes:   []string{removeNote(name)},
	}
}

// unpin drops name's murmur.lock entry, which pull-artifact wrote (origin
// runtime), under the lock's flock (store.EditLock); an origin: operator pin
// refuses the removal (RMA-2).
func (in *Installer) unpin(name string) (refusal string, err error) {
	if in.cfg.LockDir == "" {
		return "", nil
	}
	err = store.EditLock(in.cfg.LockDir, func(lock *store.Lock) (*store.Lock, error) {
		e, ok := lock.Find(name)
		switch {
		case !ok:
			return nil, nil
		case !strings.EqualFold(e.Origin, store.OriginRuntime):
			refusal = removeOperatorPin(name)
			return nil, nil
		}
		lock.Remove(name)
		return lock, nil
	})
	return refusal, err
}

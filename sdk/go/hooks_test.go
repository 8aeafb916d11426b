package lifeloop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// hookTable is spec/tables/harness-hook-mapping.json as this test reads it itself (encoding/json),
// independently of the generated constants it checks.
type hookTable struct {
	Adapters []struct {
		Adapter             string   `json:"adapter"`
		Harness             string   `json:"harness"`
		AdapterIDs          []string `json:"adapter_ids"`
		HarnessContextLimit *struct {
			Length   int    `json:"length"`
			Unit     string `json:"unit"`
			OnExceed string `json:"on_exceed"`
			Fact     string `json:"fact"`
		} `json:"harness_context_limit"`
		HookEvents []struct {
			HookEvent         string   `json:"hook_event"`
			OutputSchema      string   `json:"output_schema"`
			ContextSlot       *string  `json:"context_slot"`
			ContextPlacements []string `json:"context_placements"`
			Block             string   `json:"block"`
		} `json:"hook_events"`
		Events []struct {
			Event     string `json:"event"`
			HookEvent string `json:"hook_event"`
		} `json:"events"`
	} `json:"adapters"`
	BlockEffects []struct {
		Block string `json:"block"`
	} `json:"block_effects"`
}

// readHookTable reads the mapping table from the repository (the module is sdk/go).
func readHookTable(t *testing.T) hookTable {
	t.Helper()
	path := filepath.Join("..", "..", "spec", "tables", "harness-hook-mapping.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (run the tests in sdk/go of a lifeloop-callback checkout): %v", path, err)
	}
	var table hookTable
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(table.Adapters) == 0 {
		t.Fatalf("%s lists no adapters", path)
	}
	return table
}

// TestHookEventForWalksTheTable checks every adapter id of every adapter against every
// LifecycleEventKind: HookEventFor and HookEventInfoFor must answer what the JSON table says.
func TestHookEventForWalksTheTable(t *testing.T) {
	table := readHookTable(t)
	checked := 0
	for _, a := range table.Adapters {
		want := map[string]string{}
		for _, e := range a.Events {
			want[e.Event] = e.HookEvent
		}
		if len(want) != len(LifecycleEventKindValues) {
			t.Fatalf("%s: the table maps %d events, LifecycleEventKind has %d", a.Adapter, len(want), len(LifecycleEventKindValues))
		}
		for _, id := range a.AdapterIDs {
			adapter, ok := HookAdapterFor(id)
			if !ok || string(adapter) != a.Adapter {
				t.Fatalf("HookAdapterFor(%q) = %q, %v; want %q", id, adapter, ok, a.Adapter)
			}
			for _, event := range LifecycleEventKindValues {
				expected, listed := want[string(event)]
				if !listed {
					t.Fatalf("%s: the table does not list %s", a.Adapter, event)
				}
				got, ok := HookEventFor(id, event)
				info, infoOK := HookEventInfoFor(id, event)
				if expected == "unsupported" {
					if ok || got != "" || infoOK {
						t.Errorf("HookEventFor(%q, %s) = %q, %v (info %v); the table says unsupported", id, event, got, ok, infoOK)
					}
					checked++
					continue
				}
				if !ok || got != expected {
					t.Errorf("HookEventFor(%q, %s) = %q, %v; the table says %q", id, event, got, ok, expected)
				}
				found := false
				for _, h := range a.HookEvents {
					if h.HookEvent != expected {
						continue
					}
					found = true
					slot := ""
					if h.ContextSlot != nil {
						slot = *h.ContextSlot
					}
					placements := []string{}
					for _, p := range info.ContextPlacements {
						placements = append(placements, string(p))
					}
					if !infoOK || string(info.Adapter) != a.Adapter || info.HookEvent != expected || info.OutputSchema != h.OutputSchema ||
						string(info.ContextSlot) != slot || !reflect.DeepEqual(placements, append([]string{}, h.ContextPlacements...)) ||
						string(info.Block) != h.Block || info.BlockApplies != (h.Block == "block_prompt" || h.Block == "request_continuation") {
						t.Errorf("HookEventInfoFor(%q, %s) = %+v, %v; the table's row is %+v", id, event, info, infoOK, h)
					}
				}
				if !found {
					t.Fatalf("%s: %s maps to %s, which is not one of its hook_events", a.Adapter, event, expected)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing was checked")
	}
}

// TestHookAdapterInfos checks the adapter rows, their order and every generated name against the
// JSON table.
func TestHookAdapterInfos(t *testing.T) {
	table := readHookTable(t)
	if len(HookAdapters) != len(table.Adapters) || len(HookAdapterInfos) != len(table.Adapters) {
		t.Fatalf("%d adapters, %d infos; the table has %d", len(HookAdapters), len(HookAdapterInfos), len(table.Adapters))
	}
	// The generated hook event constants, one list per adapter in HookAdapters order
	// (hookEventConstants, generated_test.go).
	constants := hookEventConstants
	if len(constants) != len(table.Adapters) {
		t.Fatalf("hook event constants for %d adapters; the table has %d", len(constants), len(table.Adapters))
	}
	for i, a := range table.Adapters {
		adapter := HookAdapters[i]
		info, ok := adapter.Info()
		if string(adapter) != a.Adapter || !ok || info.Harness != a.Harness || !reflect.DeepEqual(info.AdapterIDs, a.AdapterIDs) {
			t.Errorf("adapter %d: %q %+v; the table says %q %q %v", i, adapter, info, a.Adapter, a.Harness, a.AdapterIDs)
		}
		limit := a.HarnessContextLimit
		if (limit == nil) != (info.ContextLimit == nil) ||
			(limit != nil && (limit.Length != info.ContextLimit.Length || limit.Unit != info.ContextLimit.Unit || limit.OnExceed != info.ContextLimit.OnExceed || limit.Fact != info.ContextLimit.Fact)) {
			t.Errorf("%s: context limit %+v; the table says %+v", a.Adapter, info.ContextLimit, limit)
		}
		names := []string{}
		for _, h := range a.HookEvents {
			names = append(names, h.HookEvent)
		}
		if !reflect.DeepEqual(constants[i], names) {
			t.Errorf("%s: hook event constants %v; the table's hook events are %v", a.Adapter, constants[i], names)
		}
		if len(info.HookEvents) != len(names) {
			t.Errorf("%s: %d hook event infos; the table has %d", a.Adapter, len(info.HookEvents), len(names))
		}
		for j := range info.HookEvents {
			if j < len(names) && info.HookEvents[j].HookEvent != names[j] {
				t.Errorf("%s: hook event %d is %q; the table says %q", a.Adapter, j, info.HookEvents[j].HookEvent, names[j])
			}
		}
	}
	effects := []string{}
	for _, b := range table.BlockEffects {
		effects = append(effects, b.Block)
	}
	got := []string{}
	for _, b := range HookBlockEffects {
		got = append(got, string(b))
	}
	if !reflect.DeepEqual(got, effects) {
		t.Errorf("HookBlockEffects %v; the table says %v", got, effects)
	}
}

// TestHookLookupsRefuseUnknownNames checks the lookups on names outside the table.
func TestHookLookupsRefuseUnknownNames(t *testing.T) {
	for _, id := range []string{"", "Claude", "claude ", "claude_code", "no-such-harness"} {
		if adapter, ok := HookAdapterFor(id); ok {
			t.Errorf("HookAdapterFor(%q) = %q, true", id, adapter)
		}
		if hookEvent, ok := HookEventFor(id, LifecycleEventKindSessionStarting); ok {
			t.Errorf("HookEventFor(%q, session.starting) = %q, true", id, hookEvent)
		}
	}
	for _, adapter := range HookAdapters {
		if hookEvent, ok := HookEventFor(string(adapter), LifecycleEventKind("session.unknown")); ok {
			t.Errorf("HookEventFor(%q, session.unknown) = %q, true", adapter, hookEvent)
		}
	}
	if _, ok := HookAdapter("no-such-harness").Info(); ok {
		t.Error(`HookAdapter("no-such-harness").Info() found a row`)
	}
}

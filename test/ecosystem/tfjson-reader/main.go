// A tiny reader of Terraform JSON plans built on HashiCorp's terraform-json, as CI tools built
// for `terraform show -json` read them. test/ecosystem/terraform-plan.test.ts builds it offline
// against the terraform-json release installed here (Debian's golang-github-hashicorp-terraform-
// json-dev) and gives it obsync's JSON plans.
//
// For every file: the plan is unmarshalled into tfjson.Plan (which checks format_version, and
// prior_state's), then decoded again into the fields later releases added (v0.28.0 types,
// declared below), so a field of the wrong JSON type fails here too. It prints one JSON line per
// file with what it read: each change with its before and after, and every resource of
// planned_values, prior_state and configuration with its values, as the library decoded them.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	tfjson "github.com/hashicorp/terraform-json"
)

// Fields of terraform-json v0.28.0 that the installed release does not have, with its types.
type laterFields struct {
	ResourceDrift   []*tfjson.ResourceChange `json:"resource_drift"`
	ResourceChanges []laterChange            `json:"resource_changes"`
	Timestamp       string                   `json:"timestamp"`
	Complete        *bool                    `json:"complete"`
	Applyable       *bool                    `json:"applyable"`
	Errored         *bool                    `json:"errored"`
	PlannedValues   *laterStateValues        `json:"planned_values"`
	PriorState      *struct {
		Values *laterStateValues `json:"values"`
	} `json:"prior_state"`
}

// StateResource.SensitiveValues (json.RawMessage in v0.28.0), by module and resource.
type laterStateValues struct {
	RootModule *struct {
		ChildModules []struct {
			Resources []struct {
				Address         string          `json:"address"`
				SensitiveValues json.RawMessage `json:"sensitive_values"`
			} `json:"resources"`
		} `json:"child_modules"`
	} `json:"root_module"`
}

type laterChange struct {
	PreviousAddress string `json:"previous_address"`
	ActionReason    string `json:"action_reason"`
	Change          struct {
		BeforeSensitive interface{} `json:"before_sensitive"`
		AfterSensitive  interface{} `json:"after_sensitive"`
		Importing       *struct {
			ID       string      `json:"id"`
			Unknown  bool        `json:"unknown"`
			Identity interface{} `json:"identity"`
		} `json:"importing"`
		GeneratedConfig string        `json:"generated_config"`
		ReplacePaths    []interface{} `json:"replace_paths"`
		BeforeIdentity  interface{}   `json:"before_identity"`
		AfterIdentity   interface{}   `json:"after_identity"`
	} `json:"change"`
}

type readChange struct {
	Address         string      `json:"address"`
	ModuleAddress   string      `json:"module_address"`
	Mode            string      `json:"mode"`
	Type            string      `json:"type"`
	Name            string      `json:"name"`
	ProviderName    string      `json:"provider_name"`
	Actions         []string    `json:"actions"`
	Verb            string      `json:"verb"`
	HasAfterUnknown bool        `json:"has_after_unknown"`
	PreviousAddress string      `json:"previous_address,omitempty"`
	ImportingID     string      `json:"importing_id,omitempty"`
	ActionReason    string      `json:"action_reason,omitempty"`
	AfterSensitive  bool        `json:"after_sensitive"`
	HasBefore       bool        `json:"has_before"`
	Before          interface{} `json:"before"`
	After           interface{} `json:"after"`
}

// A resource of planned_values or prior_state, or of a module of the configuration (then Values
// are its expressions' constant values, and Address is absolute: module.<call>.<its address>).
type readResource struct {
	Address         string                 `json:"address"`
	Module          string                 `json:"module"`
	Mode            string                 `json:"mode"`
	Type            string                 `json:"type"`
	Name            string                 `json:"name"`
	Provider        string                 `json:"provider"`
	Values          map[string]interface{} `json:"values"`
	SensitiveValues json.RawMessage        `json:"sensitive_values,omitempty"`
	DependsOn       []string               `json:"depends_on,omitempty"`
}

type readPlan struct {
	File          string         `json:"file"`
	FormatVersion string         `json:"format_version"`
	Changes       []readChange   `json:"resource_changes"`
	Drift         []readChange   `json:"resource_drift"`
	Planned       []readResource `json:"planned_values"`
	Prior         []readResource `json:"prior_state"`
	PriorFormat   string         `json:"prior_state_format_version"`
	Configuration []readResource `json:"configuration"`
	Complete      *bool          `json:"complete"`
	Applyable     *bool          `json:"applyable"`
	Errored       *bool          `json:"errored"`
	Timestamp     string         `json:"timestamp"`
}

// The verb the library's helpers give the actions: what a CI gate asks of each change.
func verb(a tfjson.Actions) string {
	switch {
	case a.NoOp():
		return "no-op"
	case a.Create():
		return "create"
	case a.Update():
		return "update"
	case a.Delete():
		return "delete"
	case a.Replace():
		return "replace"
	case a.Read():
		return "read"
	}
	return "unknown"
}

func describe(rc *tfjson.ResourceChange) readChange {
	out := readChange{
		Address:       rc.Address,
		ModuleAddress: rc.ModuleAddress,
		Mode:          string(rc.Mode),
		Type:          rc.Type,
		Name:          rc.Name,
		ProviderName:  rc.ProviderName,
	}
	if rc.Change != nil {
		for _, a := range rc.Change.Actions {
			out.Actions = append(out.Actions, string(a))
		}
		out.Verb = verb(rc.Change.Actions)
		out.HasAfterUnknown = rc.Change.AfterUnknown != nil
		out.HasBefore = rc.Change.Before != nil
		out.Before = rc.Change.Before
		out.After = rc.Change.After
	}
	return out
}

// Every resource of the state's modules (obsync puts them in the root module's children).
func stateResources(values *tfjson.StateValues, later *laterStateValues) []readResource {
	out := []readResource{}
	if values == nil || values.RootModule == nil {
		return out
	}
	sensitive := map[string]json.RawMessage{}
	if later != nil && later.RootModule != nil {
		for _, m := range later.RootModule.ChildModules {
			for _, r := range m.Resources {
				sensitive[r.Address] = r.SensitiveValues
			}
		}
	}
	modules := append([]*tfjson.StateModule{values.RootModule}, values.RootModule.ChildModules...)
	for _, m := range modules {
		for _, r := range m.Resources {
			out = append(out, readResource{
				Address: r.Address, Module: m.Address, Mode: string(r.Mode), Type: r.Type, Name: r.Name,
				Provider: r.ProviderName, Values: r.AttributeValues, SensitiveValues: sensitive[r.Address],
			})
		}
	}
	return out
}

// Every resource of the configuration's module calls, its expressions read as the library reads them.
func configResources(config *tfjson.Config) ([]readResource, error) {
	out := []readResource{}
	if config == nil || config.RootModule == nil {
		return out, nil
	}
	for call, mc := range config.RootModule.ModuleCalls {
		if mc.Module == nil {
			continue
		}
		for _, r := range mc.Module.Resources {
			provider, ok := config.ProviderConfigs[r.ProviderConfigKey]
			if !ok {
				return nil, fmt.Errorf("configuration: %s names provider config %q, which is not declared", r.Address, r.ProviderConfigKey)
			}
			values := map[string]interface{}{}
			for key, e := range r.Expressions {
				if e == nil || e.ExpressionData == nil || e.ConstantValue == tfjson.UnknownConstantValue {
					return nil, fmt.Errorf("configuration: %s.%s is not a constant", r.Address, key)
				}
				values[key] = e.ConstantValue
			}
			out = append(out, readResource{
				Address: "module." + call + "." + r.Address, Module: "module." + call, Mode: string(r.Mode), Type: r.Type,
				Name: r.Name, Provider: provider.Name, Values: values, DependsOn: r.DependsOn,
			})
		}
	}
	return out, nil
}

func read(file string) (readPlan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return readPlan{}, err
	}
	var plan tfjson.Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		return readPlan{}, fmt.Errorf("terraform-json: %w", err)
	}
	var later laterFields
	if err := json.Unmarshal(data, &later); err != nil {
		return readPlan{}, fmt.Errorf("terraform-json v0.28.0 fields: %w", err)
	}
	out := readPlan{
		File: file, FormatVersion: plan.FormatVersion, Changes: []readChange{}, Drift: []readChange{},
		Complete: later.Complete, Applyable: later.Applyable, Errored: later.Errored, Timestamp: later.Timestamp,
	}
	var priorLater *laterStateValues
	if later.PriorState != nil {
		priorLater = later.PriorState.Values
	}
	out.Planned = stateResources(plan.PlannedValues, later.PlannedValues)
	if plan.PriorState != nil {
		out.PriorFormat = plan.PriorState.FormatVersion
		out.Prior = stateResources(plan.PriorState.Values, priorLater)
	} else {
		out.Prior = []readResource{}
	}
	config, err := configResources(plan.Config)
	if err != nil {
		return readPlan{}, err
	}
	out.Configuration = config
	for i, rc := range plan.ResourceChanges {
		c := describe(rc)
		if i < len(later.ResourceChanges) {
			l := later.ResourceChanges[i]
			c.PreviousAddress = l.PreviousAddress
			c.ActionReason = l.ActionReason
			c.AfterSensitive = l.Change.AfterSensitive != nil && l.Change.AfterSensitive != false
			if l.Change.Importing != nil {
				c.ImportingID = l.Change.Importing.ID
			}
		}
		out.Changes = append(out.Changes, c)
	}
	for _, rc := range later.ResourceDrift {
		out.Drift = append(out.Drift, describe(rc))
	}
	return out, nil
}

func main() {
	failed := false
	for _, file := range os.Args[1:] {
		plan, err := read(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			failed = true
			continue
		}
		line, _ := json.Marshal(plan)
		fmt.Println(string(line))
	}
	if failed {
		os.Exit(1)
	}
}

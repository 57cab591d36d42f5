// A tiny reader of Terraform JSON plans built on HashiCorp's terraform-json, as CI tools built
// for `terraform show -json` read them. test/ecosystem/terraform-plan.test.ts builds it offline
// against the terraform-json release installed here (Debian's golang-github-hashicorp-terraform-
// json-dev) and gives it obsync's JSON plans.
//
// For every file: the plan is unmarshalled into tfjson.Plan (which checks format_version), then
// decoded again into the fields later releases added (v0.28.0 types, declared below), so a field
// of the wrong JSON type fails here too. It prints one JSON line per file with what it read.
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
	Address         string   `json:"address"`
	ModuleAddress   string   `json:"module_address"`
	Mode            string   `json:"mode"`
	Type            string   `json:"type"`
	Name            string   `json:"name"`
	ProviderName    string   `json:"provider_name"`
	Actions         []string `json:"actions"`
	Verb            string   `json:"verb"`
	HasAfterUnknown bool     `json:"has_after_unknown"`
	PreviousAddress string   `json:"previous_address,omitempty"`
	ImportingID     string   `json:"importing_id,omitempty"`
	ActionReason    string   `json:"action_reason,omitempty"`
	AfterSensitive  bool     `json:"after_sensitive"`
}

type readPlan struct {
	File          string       `json:"file"`
	FormatVersion string       `json:"format_version"`
	Changes       []readChange `json:"resource_changes"`
	Drift         []readChange `json:"resource_drift"`
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
	}
	return out
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
	out := readPlan{File: file, FormatVersion: plan.FormatVersion, Changes: []readChange{}, Drift: []readChange{}}
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

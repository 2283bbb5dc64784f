/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package argocd runs Berth's Argo CD health checks, the Lua scripts in
// config/argocd/<Kind>/health.lua, the way Argo CD runs resource
// customizations, so that Go tests can check them against real objects.
package argocd

import (
	"embed"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

//go:embed */health.lua
var scripts embed.FS

// Health runs the health check of obj's kind on obj, an object as decoded
// JSON, and returns Argo CD's health status and message.
func Health(obj map[string]any) (status, message string, err error) {
	kind, _ := obj["kind"].(string)
	script, err := scripts.ReadFile(kind + "/health.lua")
	if err != nil {
		return "", "", fmt.Errorf("no health check for kind %q: %w", kind, err)
	}
	return RunHealth(string(script), obj)
}

// RunHealth runs a health script as Argo CD does: obj is the resource as a
// Lua table, the script returns a table with status and message. Only the
// libraries Argo CD opens are available.
func RunHealth(script string, obj map[string]any) (status, message string, err error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		return "", "", fmt.Errorf("running the script: %w", err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return "", "", fmt.Errorf("the script returned %s, want a table", L.Get(-1).Type())
	}
	s, ok := hs.RawGetString("status").(lua.LString)
	if !ok {
		return "", "", fmt.Errorf("the script returned no status")
	}
	m, _ := hs.RawGetString("message").(lua.LString)
	return string(s), string(m), nil
}

// toLua converts decoded JSON into Lua values, as Argo CD does. Numbers
// may be float64 (encoding/json) or int64 (apimachinery's unstructured).
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		t := L.NewTable()
		for _, e := range v {
			t.Append(toLua(L, e))
		}
		return t
	case map[string]any:
		t := L.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	default:
		return lua.LString(fmt.Sprint(v))
	}
}

-- Argo CD health of a Berth SchedulingProfile (scheduling.berth.io/v1alpha1).
-- It reads the kstatus conditions Ready, Reconciling and Stalled together with
-- status.observedGeneration and status.activeGeneration.
local hs = {}

local function findCondition(status, conditionType)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end

local function explain(c, fallback)
  local reason = c.reason or ""
  local message = c.message or ""
  if reason ~= "" and message ~= "" then
    return reason .. ": " .. message
  end
  if message ~= "" then
    return message
  end
  if reason ~= "" then
    return reason
  end
  return fallback
end

local generation = obj.metadata.generation or 0
local status = obj.status

if status == nil or (status.observedGeneration or 0) < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for Berth to observe generation " .. generation
  return hs
end

local active = status.activeGeneration or 0
local stalled = findCondition(status, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = explain(stalled, "The profile is stalled")
  if active > 0 and active < generation then
    hs.message = hs.message .. " (generation " .. active .. " stays live)"
  end
  return hs
end

local reconciling = findCondition(status, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = explain(reconciling, "Compiling the profile")
  return hs
end

local ready = findCondition(status, "Ready")
if ready == nil or ready.status == "Unknown" then
  hs.status = "Progressing"
  hs.message = "Waiting for the Ready condition"
  return hs
end
-- Ready=False without Stalled may still resolve itself, as kstatus reads it.
if ready.status ~= "True" then
  hs.status = "Progressing"
  hs.message = explain(ready, "The profile is not ready")
  return hs
end
if active < generation then
  hs.status = "Degraded"
  if active > 0 then
    hs.message = "Generation " .. generation .. " is not live; generation " .. active .. " keeps scheduling"
  else
    hs.message = "Generation " .. generation .. " is not live"
  end
  return hs
end

hs.status = "Healthy"
local scheduler = status.schedulerName or obj.metadata.name
hs.message = "Scheduler " .. scheduler .. " runs generation " .. active
if status.pluginCount ~= nil then
  hs.message = hs.message .. " with " .. status.pluginCount .. " plugins"
end
-- Another scheduler binding pods of the same name is worth a word, not a
-- health change: the profile itself is live and does its work.
local conflict = findCondition(status, "SchedulerConflict")
if conflict ~= nil and conflict.status == "True" then
  hs.message = hs.message .. "; warning: " .. explain(conflict, "another scheduler binds pods of this schedulerName")
end
return hs

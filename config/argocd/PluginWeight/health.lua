-- Argo CD health of a Berth PluginWeight (scheduling.berth.io/v1alpha1).
-- It reads the kstatus conditions Ready, Reconciling and Stalled with
-- status.observedGeneration and status.appliedTo, and the Applied condition
-- of a status written before Berth set Ready.
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

-- The kstatus conditions first, as kstatus reads them: Stalled is Degraded,
-- Reconciling and Ready=False without Stalled are Progressing.
local stalled = findCondition(status, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = explain(stalled, "The weight cannot take effect")
  return hs
end
local reconciling = findCondition(status, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = explain(reconciling, "Waiting for the selected profiles to apply the weight")
  return hs
end

-- Ready, or Applied as Berth before Ready wrote it.
local ready = findCondition(status, "Ready")
local legacy = ready == nil
if legacy then
  ready = findCondition(status, "Applied")
end
if ready == nil or ready.status == "Unknown" then
  hs.status = "Progressing"
  hs.message = "Waiting for the Ready condition"
  return hs
end
if ready.status ~= "True" then
  if legacy then
    hs.status = "Degraded"
  else
    hs.status = "Progressing"
  end
  hs.message = explain(ready, "The weight is not applied")
  return hs
end

hs.status = "Healthy"
local plugin = obj.spec.plugin or "?"
local weight = obj.spec.weight or "?"
hs.message = plugin .. " weight " .. weight
if status.appliedTo ~= nil and #status.appliedTo > 0 then
  hs.message = hs.message .. " applied to " .. table.concat(status.appliedTo, ", ")
else
  hs.message = hs.message .. " applied"
end
return hs

-- Argo CD health of a Berth PluginWeight (scheduling.berth.io/v1alpha1).
-- It reads the Applied condition, status.appliedTo and status.observedGeneration.
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

local applied = findCondition(status, "Applied")
if applied == nil or applied.status == "Unknown" then
  hs.status = "Progressing"
  hs.message = "Waiting for the Applied condition"
  return hs
end
if applied.status ~= "True" then
  hs.status = "Degraded"
  hs.message = explain(applied, "The weight is not applied")
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

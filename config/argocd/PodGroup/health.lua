-- Argo CD health of a Berth PodGroup (scheduling.berth.io/v1alpha1), from
-- status.phase: a gang waiting for its members is Suspended, one being placed
-- is Progressing, one bound or running is Healthy and a failed one Degraded.
local hs = {}

local generation = obj.metadata.generation or 0
local status = obj.status
-- How many members the group needs: a gang's minCount, 1 for a basic
-- group, or the deprecated minMember of a PodGroup written for Berth v0.1.
local minCount = 0
local spec = obj.spec or {}
if spec.schedulingPolicy ~= nil then
  if spec.schedulingPolicy.gang ~= nil and spec.schedulingPolicy.gang.minCount ~= nil then
    minCount = spec.schedulingPolicy.gang.minCount
  else
    minCount = 1
  end
elseif spec.minMember ~= nil then
  minCount = spec.minMember
end

if status == nil or status.phase == nil or (status.observedGeneration or 0) < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for Berth to observe generation " .. generation
  return hs
end

local scheduled = status.scheduled or 0
local running = status.running or 0
local phase = status.phase

if phase == "Pending" then
  hs.status = "Suspended"
  hs.message = "Waiting for " .. minCount .. " pods labelled scheduling.berth.io/pod-group=" .. obj.metadata.name
  return hs
end
if phase == "Scheduling" then
  hs.status = "Progressing"
  hs.message = scheduled .. "/" .. minCount .. " members scheduled"
  return hs
end
if phase == "Scheduled" then
  hs.status = "Healthy"
  hs.message = scheduled .. "/" .. minCount .. " members scheduled"
  return hs
end
if phase == "Running" then
  hs.status = "Healthy"
  hs.message = running .. "/" .. minCount .. " members running"
  return hs
end
if phase == "Failed" then
  hs.status = "Degraded"
  hs.message = "The gang failed"
  if status.conditions ~= nil then
    for _, c in ipairs(status.conditions) do
      if c.message ~= nil and c.message ~= "" then
        hs.message = hs.message .. ": " .. c.message
        break
      end
    end
  end
  return hs
end

hs.status = "Unknown"
hs.message = "Unknown phase " .. phase
return hs

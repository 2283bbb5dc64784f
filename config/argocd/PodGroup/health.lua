-- Argo CD health of a Berth PodGroup (scheduling.berth.io/v1alpha1), from
-- status.phase: a gang waiting for its members is Suspended, one being placed
-- is Progressing, one bound or running is Healthy and a failed one Degraded.
local hs = {}

local generation = obj.metadata.generation or 0
local status = obj.status
local minMember = 0
if obj.spec ~= nil and obj.spec.minMember ~= nil then
  minMember = obj.spec.minMember
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
  hs.message = "Waiting for " .. minMember .. " pods labelled scheduling.berth.io/pod-group=" .. obj.metadata.name
  return hs
end
if phase == "Scheduling" then
  hs.status = "Progressing"
  hs.message = scheduled .. "/" .. minMember .. " members scheduled"
  return hs
end
if phase == "Scheduled" then
  hs.status = "Healthy"
  hs.message = scheduled .. "/" .. minMember .. " members scheduled"
  return hs
end
if phase == "Running" then
  hs.status = "Healthy"
  hs.message = running .. "/" .. minMember .. " members running"
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

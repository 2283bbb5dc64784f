-- Argo CD health of a Berth RebalancePolicy (scheduling.berth.io/v1alpha1).
-- It reads the kstatus conditions Ready, Reconciling and Stalled with
-- status.observedGeneration, and says whether the policy only plans (dry run)
-- or evicts.
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

local mode = "live"
if obj.spec ~= nil and obj.spec.dryRun == true then
  mode = "dry run"
end

local generation = obj.metadata.generation or 0
local status = obj.status

if status == nil or (status.observedGeneration or 0) < generation then
  hs.status = "Progressing"
  hs.message = "[" .. mode .. "] Waiting for Berth to observe generation " .. generation
  return hs
end

local stalled = findCondition(status, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = "[" .. mode .. "] " .. explain(stalled, "The policy is stalled")
  return hs
end

local reconciling = findCondition(status, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = "[" .. mode .. "] " .. explain(reconciling, "Reconciling the policy")
  return hs
end

local ready = findCondition(status, "Ready")
if ready == nil or ready.status == "Unknown" then
  hs.status = "Progressing"
  hs.message = "[" .. mode .. "] Waiting for the Ready condition"
  return hs
end
-- Ready=False without Stalled (the last run failed) may resolve itself at
-- the next run, as kstatus reads it.
if ready.status ~= "True" then
  hs.status = "Progressing"
  hs.message = "[" .. mode .. "] " .. explain(ready, "The policy is not ready")
  return hs
end

hs.status = "Healthy"
local run = status.lastRun
if run == nil then
  hs.message = "[" .. mode .. "] Waiting for the first run"
elseif run.dryRun == true then
  hs.message = "[" .. mode .. "] Last run planned " .. (run.planned or 0) .. " evictions"
else
  hs.message = "[" .. mode .. "] Last run evicted " .. (run.evicted or 0) .. " of " .. (run.planned or 0) ..
    " planned (" .. (run.blocked or 0) .. " blocked by PDBs, " .. (run.failed or 0) .. " failed)"
end
return hs

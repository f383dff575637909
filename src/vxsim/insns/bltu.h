// bltu (I)
#pragma once

BRANCH(bltu) { return RS1 < RS2; }
